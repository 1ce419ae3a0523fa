/**
 * One memory's queries, without a framework: state, pages, search, item history, the recall
 * audit, the log, its changes and its proofs. Each first catches the read models up with the log,
 * so a caller always reads its own writes. {@link MemoryHandle} adds the commands.
 */
import type { Observable } from 'rxjs';
import type { MemoryState, RecallMode, RecallStat, Sequenced } from '../core/index.js';
import {
  collectState,
  estimatedJsonBytes,
  resolvePage,
  rx,
  streamState,
  type StateChunk,
  type MemoryReadModel,
  type PageOptions,
  type ReadModelDb,
} from '../read-models/index.js';
import type { EventLog, ReadOptions } from '../store/event-log.port.js';
import { eventsFrom } from './changes.js';
import type {
  EventLookup,
  ItemHistory,
  MemorySettings,
  RecallAuditPage,
  RecallAuditQuery,
  SearchResult,
  StatePage,
} from './memory.types.js';
import { itemRecalls, lookUpItem } from './item-lookup.js';
import { inspectionSearch } from './inspection-search.js';
import { auditRecalls } from './recall-audit.js';
import { checkSeq, notFound, requireString } from './request-checks.js';
import type {
  CheckpointNote,
  ConsistencyProofJson,
  InclusionProofJson,
} from './verifiable-log.types.js';

/** The recalls an item's history lists at most (its total is in the recall statistics). */
export const HISTORY_RECALLS = 1000;

/** One memory's queries (read-only: nothing here appends). */
export class MemoryQueries {
  protected readonly db: ReadModelDb;

  constructor(
    /** The memory id. */
    readonly memoryId: string,
    protected readonly log: EventLog,
    protected readonly models: MemoryReadModel,
    protected readonly settings: MemorySettings,
  ) {
    this.db = models.db;
  }

  /**
   * The whole state now, or as it stood right after `upToSeq`, from the read models. It is as
   * large as the memory: prefer {@link statePage} for anything a person or a model looks at.
   */
  async state(options: { readonly upToSeq?: number } = {}): Promise<MemoryState> {
    return collectState(this.streamState(options));
  }

  /**
   * The whole state now or as of `upToSeq`, in chunks ({@link StateChunk}): a head with the
   * totals, then the content, the deletions and the recall statistics, each read by index a
   * chunk at a time, so a memory of any size streams without being held.
   */
  async *streamState(options: { readonly upToSeq?: number } = {}): AsyncGenerator<StateChunk> {
    if (options.upToSeq !== undefined) checkSeq(options.upToSeq, 'upToSeq', -1);
    const head = await this.models.catchUp();
    const n = Math.min(options.upToSeq ?? head, head);
    yield* streamState(
      () => this.db.wholeState,
      (work) => this.db.read(work),
      this.models.mem,
      n,
    );
  }

  /**
   * A page of the state's lists, with totals, now or as of `upToSeq`, answered by index from
   * the read models: the replay slider asks for one on every move.
   */
  async statePage(options: { readonly upToSeq?: number } & PageOptions = {}): Promise<StatePage> {
    const { upToSeq, ...pageOptions } = options;
    if (upToSeq !== undefined) checkSeq(upToSeq, 'upToSeq', -1);
    const page = resolvePage(pageOptions);
    const head = await this.models.catchUp();
    const n = Math.min(upToSeq ?? head, head);
    return this.db.read(() => this.db.queries.statePage(this.models.mem, n, page));
  }

  /**
   * Inspection search (writes nothing): visible content now, or as of `asOfSeq`, by BM25, vectors
   * or both fused (`mode`; scores are then cosine similarities or fused RRF scores).
   */
  async search(
    query: string,
    options: {
      readonly asOfSeq?: number;
      readonly limit?: number;
      readonly mode?: RecallMode;
    } = {},
  ): Promise<SearchResult[]> {
    requireString(query, 'query');
    if (options.asOfSeq !== undefined) checkSeq(options.asOfSeq, 'asOfSeq', -1);
    const { memoryId, models, settings } = this;
    return inspectionSearch({ memoryId, models, settings }, query, options);
  }

  /** Recall statistics of every item ever recalled. */
  async recallStats(): Promise<MemoryState['recallStats']> {
    const head = await this.models.catchUp();
    const stats: Record<string, RecallStat> = {};
    for (let after: number | undefined = -1; after !== undefined;) {
      const chunk = this.db.read(() =>
        this.db.wholeState.recallStats(this.models.mem, head, after!),
      );
      for (const [id, stat] of chunk.entries) stats[id] = stat;
      after = chunk.next;
    }
    return stats;
  }

  /** One event by id (deleted content included, marked so); `EVENT_NOT_FOUND` when absent. */
  async getEvent(id: string): Promise<EventLookup> {
    requireString(id, 'id');
    await this.models.catchUp();
    const found = lookUpItem(this.db, this.models.mem, id);
    if (!found) throw notFound(id, this.memoryId);
    return { ...found, deleted: found.deletedBy !== null };
  }

  /**
   * When an item was written, the recalls that used it (the first {@link HISTORY_RECALLS}),
   * the deletion that removed it and the erasure that destroyed its words.
   */
  async history(id: string): Promise<ItemHistory> {
    const { event, deletedBy, erasedBy } = await this.getEvent(id);
    const recalls = itemRecalls(this.db, this.models.mem, event.seq, HISTORY_RECALLS);
    return { event, recalls, deletedBy, erasedBy };
  }

  /** A page of the recall audit: by principal, between two times ({@link RecallAuditQuery}). */
  async recallAudit(query: RecallAuditQuery = {}): Promise<RecallAuditPage> {
    const head = await this.models.catchUp();
    return auditRecalls({ log: this.log, db: this.db, mem: this.models.mem, head }, query);
  }

  /**
   * A range of the log (all of it by default), cut short once its events add up to about
   * `byteBudget` bytes of JSON (at least one event is returned): continue from the last seq + 1.
   */
  async readEvents(
    options: ReadOptions & { readonly byteBudget?: number } = {},
  ): Promise<Sequenced[]> {
    const { byteBudget = Infinity, ...range } = options;
    const out: Sequenced[] = [];
    let bytes = 0;
    for await (const event of this.log.read(range)) {
      bytes += estimatedJsonBytes(event);
      if (out.length > 0 && bytes > byteBudget) break;
      out.push(event);
    }
    return out;
  }

  /** Every event from `fromSeq` (replayed from the log), then each new one as it is appended. */
  changes(options: { readonly fromSeq?: number } = {}): Observable<Sequenced> {
    return eventsFrom(this.log, options.fromSeq ?? 0);
  }

  /**
   * Every event once the read models hold it (live only: from subscription on), in seq order.
   * One log subscription serves every subscriber, and only while there is one.
   */
  get applied$(): Observable<Sequenced> {
    return this.models.applied$;
  }

  /** Resolves once the read models have applied `seq` (waiting for it to be appended). */
  async waitFor(seq: number): Promise<void> {
    if ((await this.models.catchUp()) >= seq) return;
    await rx().firstValueFrom(eventsFrom(this.log, seq));
    await this.models.catchUp();
  }

  /** The seq the read models stand at (null: nothing applied). */
  get readModelSeq(): number | null {
    const seq = this.models.checkpoint;
    return seq < 0 ? null : seq;
  }

  /**
   * The memory's checkpoint now, or at `size` (at most the log's head): its origin
   * `<log name>/<memory id>`, size and root, as a signed note (C2SP signed-note with the
   * tlog-checkpoint text and the witnesses' cosignatures) when the log has a key, else the bare
   * checkpoint text (`signed: false`). Never one that contradicts a checkpoint signed before
   * (`CHECKPOINT_INCONSISTENT`); `TREE_SIZE_PAST_HEAD` for a size the log has not reached.
   */
  checkpoint(options: { readonly size?: number } = {}): Promise<CheckpointNote> {
    return this.settings.verifiableLog.checkpoint(this.log, options.size);
  }

  /** The verifier key line checkpoints are signed under; undefined when the log is unsigned. */
  get logKey(): string | undefined {
    return this.settings.verifiableLog.logKey;
  }

  /**
   * The proof that the event at `seq` is leaf `seq` of the tree of `size` leaves (default: the
   * head): its leaf bytes (memledger/leaf/v1), leaf hash and RFC 9162 inclusion path, base64.
   * Check it with memledger/verify against a checkpoint of that size.
   */
  proveInclusion(seq: number, size?: number): Promise<InclusionProofJson> {
    return this.settings.verifiableLog.proveInclusion(this.log, seq, size);
  }

  /**
   * The proof that the tree of `from` leaves is a prefix of the tree of `to` (default: the
   * head): the RFC 9162 consistency path, base64.
   */
  proveConsistency(from: number, to?: number): Promise<ConsistencyProofJson> {
    return this.settings.verifiableLog.proveConsistency(this.log, from, to);
  }
}
