/**
 * Checking a log against a checkpoint saved earlier (`memledger verify --checkpoint`): the note's
 * signature under the given log key (and a witness quorum), then every leaf recomputed from the
 * log itself, streamed through a Merkle frontier, and the root at the checkpoint's size compared
 * with the signed one. When they differ, the seq is named if the tree the server recorded still
 * has the signed root at that size: the first event whose leaf is not the one it recorded. Else
 * only "the root differs" can be said. The log extends the checkpoint exactly when its first
 * `size` leaves give the signed root.
 */
import { isMemoryError } from '../core/index.js';
import { MerkleFrontier } from '../tlog/index.js';
import {
  isVerifyError,
  toBase64,
  verifyCheckpoint,
  type CheckpointTrust,
  type VerifiedCheckpoint,
} from '../verify/index.js';

/** One leaf of the log being checked, in seq order. */
export interface AuditedLeaf {
  readonly seq: number;
  readonly hash: Buffer;
}

/** The tree the server recorded (its leaf hashes and roots), to name a tampered seq. */
export interface RecordedTree {
  /** How many leaves it holds. */
  readonly size: number;
  leafHash(seq: number): Buffer;
  root(size: number): Buffer;
}

/** What to check, against what. */
export interface CheckpointAudit {
  readonly note: string;
  readonly trust: CheckpointTrust;
  readonly leaves: AsyncIterable<AuditedLeaf>;
  readonly recorded?: RecordedTree;
}

/** The outcome: `ok: ...` or `violation [CODE] ...` lines. */
export interface AuditReport {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

const violation = (line: string): AuditReport => ({ ok: false, lines: [`violation ${line}`] });

/** Runs the audit. */
export async function auditCheckpoint(audit: CheckpointAudit): Promise<AuditReport> {
  let checkpoint: VerifiedCheckpoint;
  try {
    checkpoint = await verifyCheckpoint(audit.note, audit.trust);
  } catch (error) {
    if (!isVerifyError(error)) throw error;
    return violation(`[${error.code}]: the saved checkpoint does not verify: ${error.message}`);
  }
  const walked = await walk(audit.leaves, checkpoint.size, usableTree(audit.recorded, checkpoint));
  if ('ok' in walked) return walked;
  const { frontier, rootAtSize, firstDiffering } = walked;
  const { size, origin } = checkpoint;
  if (rootAtSize?.equals(checkpoint.root)) return extended(checkpoint, frontier);
  if (firstDiffering !== undefined) return leafDiffers(firstDiffering, size);
  if (rootAtSize === undefined) {
    return violation(
      `[LOG_TRUNCATED] at seq ${frontier.size}: the log holds ${frontier.size} events; the checkpoint ${origin} at size ${size} signed ${size}.`,
    );
  }
  return violation(
    `[ROOT_DIFFERS]: the root differs: the log's first ${size} events give root ${toBase64(rootAtSize)}, the checkpoint ${origin} signed ${toBase64(checkpoint.root)} (the history was rewritten).`,
  );
}

interface Walked {
  readonly frontier: MerkleFrontier;
  /** The root of the first `size` leaves, undefined when the log holds fewer. */
  readonly rootAtSize: Buffer | undefined;
  /** The first seq below `size` whose leaf is not the recorded tree's. */
  readonly firstDiffering: number | undefined;
}

/** Streams every leaf once; a gap or an event that does not decode ends it as a violation. */
async function walk(
  leaves: AsyncIterable<AuditedLeaf>,
  size: number,
  recorded: RecordedTree | undefined,
): Promise<Walked | AuditReport> {
  const frontier = new MerkleFrontier();
  let rootAtSize = size === 0 ? frontier.root() : undefined;
  let firstDiffering: number | undefined;
  try {
    for await (const leaf of leaves) {
      if (leaf.seq !== frontier.size) {
        if (firstDiffering !== undefined) return leafDiffers(firstDiffering, size);
        return violation(
          `[LOG_GAP] at seq ${frontier.size}: the log has no event at seq ${frontier.size} (the next one is at seq ${leaf.seq}).`,
        );
      }
      if (recorded && firstDiffering === undefined && leaf.seq < size) {
        if (!recorded.leafHash(leaf.seq).equals(leaf.hash)) firstDiffering = leaf.seq;
      }
      frontier.push(leaf.hash);
      if (frontier.size === size) rootAtSize = frontier.root();
    }
  } catch (error) {
    if (!isMemoryError(error) || error.code !== 'EVENT_DECODE_FAILED') throw error;
    const seq = error.details.seq;
    return violation(
      `[EVENT_DECODE_FAILED]${typeof seq === 'number' ? ` at seq ${seq}` : ''}: ${error.message}`,
    );
  }
  return { frontier, rootAtSize, firstDiffering };
}

function leafDiffers(seq: number, size: number): AuditReport {
  return violation(
    `[LEAF_DIFFERS] at seq ${seq}: the event at seq ${seq} is not the one whose leaf the tree recorded and the checkpoint at size ${size} signed.`,
  );
}

/** The report of a log that extends the checkpoint. */
function extended(checkpoint: VerifiedCheckpoint, frontier: MerkleFrontier): AuditReport {
  const witnesses = checkpoint.cosignatures.map((c) => c.key.name);
  const held = frontier.size;
  return {
    ok: true,
    lines: [
      `ok: the checkpoint ${checkpoint.origin} at size ${checkpoint.size} verifies${witnesses.length ? ` (cosigned by ${witnesses.join(', ')})` : ''}; the log holds ${held} events and extends it (root at ${held}: ${toBase64(frontier.root())}).`,
    ],
  };
}

/** The recorded tree when it can name a seq: it holds the signed root at the signed size. */
function usableTree(
  tree: RecordedTree | undefined,
  checkpoint: VerifiedCheckpoint,
): RecordedTree | undefined {
  if (tree === undefined || tree.size < checkpoint.size || checkpoint.size === 0) return undefined;
  return tree.root(checkpoint.size).equals(checkpoint.root) ? tree : undefined;
}
