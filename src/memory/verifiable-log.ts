/**
 * The verifiable log of every memory of one store (invariant 10, docs/architecture.md): checkpoints, signed
 * when the operator gave a key, and inclusion and consistency proofs, all from the tree
 * projection brought up to the log's head first. A new checkpoint is signed only after the
 * consistency proof from the last one kept verifies (the log only grew), is cosigned by the
 * witnesses, then kept insert-only; one that would contradict a kept checkpoint is refused
 * loudly. Without a key the roots and proofs are served unsigned.
 */
import { MemoryError, isMemoryError } from '../core/index.js';
import type { ProjectionRuntime } from '../projections/index.js';
import { leafOf, type TreeHandler } from '../projections/tree/index.js';
import type {
  ArchivedCheckpoint,
  CheckpointArchive,
  CheckpointSeries,
} from '../store/checkpoint-archive.port.js';
import type { EventLog } from '../store/event-log.port.js';
import {
  assertExtends,
  leafHashOf,
  logIdentityLine,
  signCheckpoint,
  type LogIdentity,
  type TreeHead,
  type WitnessClient,
} from '../tlog/index.js';
import { equalBytes, formatCheckpoint, toBase64 } from '../verify/index.js';
import { checkSeq } from './request-checks.js';
import type {
  CheckpointNote,
  ConsistencyProofJson,
  InclusionProofJson,
} from './verifiable-log.types.js';

/** Tries at keeping a checkpoint while other writers keep one first. */
const KEEP_ATTEMPTS = 5;

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Checkpoints and proofs of one store's memories. */
export class VerifiableLog {
  private readonly serial = new Map<string, Promise<unknown>>();

  constructor(
    private readonly identity: LogIdentity,
    private readonly runtime: ProjectionRuntime,
    private readonly archive: CheckpointArchive,
    private readonly options: {
      readonly witnesses?: WitnessClient;
      readonly onNotice: (notice: string) => void;
    },
  ) {}

  /** The log name, first part of every origin. */
  get name(): string {
    return this.identity.name;
  }

  /** One line for the operator at start: who signs and who witnesses, or that nothing is signed. */
  get description(): string {
    return logIdentityLine(this.identity);
  }

  /** The verifier key line of the signing key, or undefined when the log is unsigned. */
  get logKey(): string | undefined {
    return this.identity.signer?.vkey;
  }

  /** The origin of a memory's checkpoints. */
  origin(memoryId: string): string {
    return `${this.identity.name}/${memoryId}`;
  }

  /** The checkpoint at the head, or at `size` <= head, signed when the log has a key. */
  async checkpoint(log: EventLog, size?: number): Promise<CheckpointNote> {
    if (size !== undefined) checkSeq(size, 'size', 0);
    const tree = await this.advance(log);
    const n = size ?? tree.size(log.memoryId);
    const head = { size: n, root: tree.root(log.memoryId, n) };
    const series = { memoryId: log.memoryId, origin: this.origin(log.memoryId) };
    const note = this.identity.signer
      ? await this.inTurn(log.memoryId, () => this.signed(series, head, tree, size === undefined))
      : formatCheckpoint({ origin: series.origin, size: n, root: head.root, extensions: [] });
    return {
      note,
      signed: this.identity.signer !== undefined,
      origin: series.origin,
      size: n,
      root: base64(head.root),
    };
  }

  /** The inclusion proof of the event at `seq` in the tree of `size` (default: the head). */
  async proveInclusion(log: EventLog, seq: number, size?: number): Promise<InclusionProofJson> {
    checkSeq(seq, 'seq', 0);
    if (size !== undefined) checkSeq(size, 'size', 0);
    const tree = await this.advance(log);
    const n = size ?? tree.size(log.memoryId);
    const path = tree.inclusionPath(log.memoryId, seq, n);
    const leaf = await this.leafAt(log, seq, tree);
    return {
      seq,
      treeSize: n,
      leaf: base64(leaf.bytes),
      leafHash: base64(leaf.hash),
      path: path.map(base64),
    };
  }

  /** The consistency proof from the tree of `from` leaves to the tree of `to` (default: the head). */
  async proveConsistency(log: EventLog, from: number, to?: number): Promise<ConsistencyProofJson> {
    checkSeq(from, 'from', 0);
    if (to !== undefined) checkSeq(to, 'to', 0);
    const tree = await this.advance(log);
    const n = to ?? tree.size(log.memoryId);
    return { from, to: n, path: tree.consistencyPath(log.memoryId, from, n).map(base64) };
  }

  /** The tree at the log's head; refused loudly when it holds leaves the log lost since. */
  private async advance(log: EventLog): Promise<TreeHandler> {
    // Only the tree: a proof of a log written without it waits for nothing else to be built.
    await this.runtime.advance(log.memoryId, { needed: ['tree'] });
    const tree = this.runtime.handler<TreeHandler>('tree')!;
    const head = (await log.lastSeq()) ?? -1;
    const held = tree.checkpoint(log.memoryId);
    if (held > head) {
      throw this.loud(
        new MemoryError(
          'LOG_INVARIANT_VIOLATED',
          `The log of memory ${log.memoryId} ends at seq ${head}, but its tree holds leaves up to seq ${held}: events were removed from the log after they were appended.`,
          { details: { memoryId: log.memoryId, head, tree: held } },
        ),
      );
    }
    return tree;
  }

  /** The leaf of the event at `seq`, refused loudly when the tree recorded another one. */
  private async leafAt(log: EventLog, seq: number, tree: TreeHandler) {
    // Trusted: the leaf comes from the stored form, and the tree's recorded leaf checks it below.
    for await (const projected of log.readProjected({ fromSeq: seq, toSeq: seq, trusted: true })) {
      const bytes = leafOf(log.memoryId, projected);
      const hash = leafHashOf(bytes);
      if (!equalBytes(hash, tree.leafHash(log.memoryId, seq))) {
        throw this.loud(
          new MemoryError(
            'LOG_INVARIANT_VIOLATED',
            `The event at seq ${seq} of memory ${log.memoryId} is not the one its tree recorded: the log was changed after the event was appended.`,
            { details: { memoryId: log.memoryId, seq } },
          ),
        );
      }
      return { bytes, hash };
    }
    throw new MemoryError(
      'LOG_INVARIANT_VIOLATED',
      `The log of memory ${log.memoryId} has no event at seq ${seq}, though its tree has a leaf there.`,
      { details: { memoryId: log.memoryId, seq } },
    );
  }

  /** Runs `work` after every earlier signing of the memory in this process. */
  private inTurn<T>(memoryId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.serial.get(memoryId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => undefined);
    this.serial.set(memoryId, settled);
    void settled.then(() => {
      if (this.serial.get(memoryId) === settled) this.serial.delete(memoryId);
    });
    return result;
  }

  /** The signed note of `head`: kept already, re-signed below the latest, or new and kept. */
  private async signed(
    series: CheckpointSeries,
    head: TreeHead,
    tree: TreeHandler,
    atHead: boolean,
  ): Promise<string> {
    // The empty tree's checkpoint is the same for every memory: signed, never kept.
    if (head.size === 0) return this.sign(series, head);
    for (let attempt = 0; attempt < KEEP_ATTEMPTS; attempt++) {
      const latest = await this.archive.latest(series);
      if (atHead && latest !== undefined && head.size < latest.size) {
        throw this.loud(
          new MemoryError(
            'CHECKPOINT_INCONSISTENT',
            `Refusing to sign ${series.origin}: its log holds ${head.size} events, but a checkpoint of size ${latest.size} was signed before; the log lost events since.`,
            { details: { origin: series.origin, size: head.size, signed: latest.size } },
          ),
        );
      }
      if (latest !== undefined && head.size <= latest.size)
        return this.earlier(series, head, latest, tree);
      const proof = latest ? tree.consistencyPath(series.memoryId, latest.size, head.size) : [];
      let note: string;
      try {
        note = signCheckpoint(this.identity.signer!, {
          origin: series.origin,
          head,
          last: latest ?? null,
          proof,
        });
      } catch (error) {
        throw this.loud(error);
      }
      const witnessed = this.options.witnesses
        ? await this.options.witnesses.cosign(note, (old) =>
            tree.consistencyPath(series.memoryId, old, head.size),
          )
        : { note, results: [] };
      for (const failed of witnessed.results.filter((result) => !result.ok)) {
        this.options.onNotice(
          `memledger: witness ${failed.witness} did not cosign ${series.origin} at size ${head.size}: ${failed.reason ?? 'no reason given'}.`,
        );
      }
      if (await this.archive.add(series, { ...head, note: witnessed.note }, latest))
        return witnessed.note;
    }
    throw new MemoryError(
      'APPEND_CONFLICT',
      `Other writers kept a checkpoint of ${series.origin} first ${KEEP_ATTEMPTS} times in a row; ask again.`,
      { details: { origin: series.origin } },
    );
  }

  /**
   * A checkpoint at or below the latest kept: the one kept at that size, else signed again
   * (Ed25519 signatures are deterministic: the same note every time) once its root is shown to be
   * a prefix of the latest. Either way its root must be the tree's.
   */
  private async earlier(
    series: CheckpointSeries,
    head: TreeHead,
    latest: ArchivedCheckpoint,
    tree: TreeHandler,
  ): Promise<string> {
    const kept = head.size === latest.size ? latest : await this.archive.at(series, head.size);
    try {
      if (kept !== undefined) {
        if (!equalBytes(kept.root, head.root)) {
          throw new MemoryError(
            'CHECKPOINT_INCONSISTENT',
            `Refusing to serve ${series.origin} at size ${head.size}: the tree's root ${toBase64(head.root)} is not the root ${toBase64(kept.root)} signed at that size before; the log was rewritten.`,
            { details: { origin: series.origin, size: head.size } },
          );
        }
        return kept.note;
      }
      assertExtends(head, latest, tree.consistencyPath(series.memoryId, head.size, latest.size));
    } catch (error) {
      throw this.loud(error);
    }
    return this.sign(series, head);
  }

  /** The note of `head`, with no check against earlier ones (the caller made it). */
  private sign(series: CheckpointSeries, head: TreeHead): string {
    return signCheckpoint(this.identity.signer!, {
      origin: series.origin,
      head,
      last: null,
      proof: [],
    });
  }

  /** Tells the operator at once about a history that contradicts a signed checkpoint. */
  private loud(error: unknown): unknown {
    if (
      isMemoryError(error) &&
      (error.code === 'CHECKPOINT_INCONSISTENT' || error.code === 'LOG_INVARIANT_VIOLATED')
    ) {
      this.options.onNotice(`memledger: REFUSED [${error.code}]: ${error.message}`);
    }
    return error;
  }
}
