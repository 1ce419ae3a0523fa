/**
 * One memory, without a framework: record, recall, delete, and every query. Commands validate
 * with the core factories and append through the store, whose guard enforces the invariants;
 * queries first catch the read models up with the log, so a caller always reads its own writes.
 */
import type { Observable } from 'rxjs';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  MemoryError,
  replay,
  type DeletionInput,
  type DocumentInput,
  type Document,
  type MemoryState,
  type Message,
  type MessageInput,
  type Recall,
  type RecallInput,
  type Deletion,
  type Sequenced,
} from '../core/index.js';
import type { EventLog, ReadOptions } from '../store/event-log.port.js';
import type { MemoryReadModels } from './memory-read-models.js';
import type {
  EventLookup,
  ItemHistory,
  MemorySettings,
  RecallRequest,
  RecallResult,
  SearchResult,
  StatePage,
} from './memory.types.js';
import { auditableRecall } from './recall.js';
import { eventsFrom } from './changes.js';
import { pageAsOf, type PageOptions } from './state-page.js';

/** One memory's commands and queries. */
export class MemoryHandle {
  private recalls: Promise<unknown> = Promise.resolve();

  constructor(
    /** The memory id. */
    readonly memoryId: string,
    private readonly log: EventLog,
    private readonly models: MemoryReadModels,
    private readonly settings: MemorySettings,
  ) {}

  /** Records a message. */
  async recordMessage(input: MessageInput): Promise<Sequenced<Message>> {
    return this.appendOne(createMessage(input, this.settings.defaults)) as Promise<
      Sequenced<Message>
    >;
  }

  /** Adds a document (its extracted plain text). */
  async addDocument(input: DocumentInput): Promise<Sequenced<Document>> {
    return this.appendOne(createDocument(input, this.settings.defaults)) as Promise<
      Sequenced<Document>
    >;
  }

  /** Records a recall the caller computed itself; refused if any id is not visible content now. */
  async recordRecall(input: RecallInput): Promise<Sequenced<Recall>> {
    return this.appendOne(createRecall(input, this.settings.defaults)) as Promise<
      Sequenced<Recall>
    >;
  }

  /** Deletes content by a visible act: a Deletion naming the targets, the reason and the requester. */
  async deleteContent(input: DeletionInput): Promise<Sequenced<Deletion>> {
    return this.appendOne(createDeletion(input, this.settings.defaults)) as Promise<
      Sequenced<Deletion>
    >;
  }

  /**
   * The auditable read: retrieve among content visible at the current seq r, append the Recall
   * with expected position r (recomputing if the log moved), and only then return the items.
   */
  recall(request: RecallRequest): Promise<RecallResult> {
    // Recalls of one memory run one at a time in this process: concurrent ones would only move
    // the log under each other and retry; retries are left for writers elsewhere.
    const result = this.recalls.then(() =>
      auditableRecall(this.log, this.models, this.settings, request),
    );
    this.recalls = result.catch(() => undefined);
    return result;
  }

  /** The state now, or as it stood right after `upToSeq`. */
  async state(options: { readonly upToSeq?: number } = {}): Promise<MemoryState> {
    await this.models.runner.catchUp();
    const current = this.models.state.state();
    if (
      options.upToSeq === undefined ||
      current.lastSeq === null ||
      options.upToSeq >= current.lastSeq
    ) {
      return current;
    }
    checkSeq(options.upToSeq, 'upToSeq', -1);
    // History is rebuilt from the log itself: the fold of the first upToSeq + 1 events.
    const events = options.upToSeq < 0 ? [] : await this.readEvents({ toSeq: options.upToSeq });
    return replay(events, { upToSeq: options.upToSeq });
  }

  /**
   * A page of the state's visible lists, with totals, now or as of `upToSeq`; answered from the
   * read models without folding the log again, so the replay slider stays fast on big memories.
   */
  async statePage(options: { readonly upToSeq?: number } & PageOptions = {}): Promise<StatePage> {
    const { upToSeq, ...page } = options;
    await this.models.runner.catchUp();
    if (upToSeq !== undefined) checkSeq(upToSeq, 'upToSeq', -1);
    const current = this.models.state.view();
    return pageAsOf(current, this.models.items, upToSeq ?? current.lastSeq ?? -1, page);
  }

  /** Inspection search (writes nothing): visible content now, or as of `asOfSeq`. */
  async search(
    query: string,
    options: { readonly asOfSeq?: number; readonly limit?: number } = {},
  ): Promise<SearchResult[]> {
    requireString(query, 'query');
    await this.models.runner.catchUp();
    if (options.asOfSeq !== undefined) checkSeq(options.asOfSeq, 'asOfSeq', -1);
    return this.models.search
      .search(query, options)
      .map((hit) => ({ ...hit, item: this.models.items.get(hit.id)!.content! }));
  }

  /** Recall statistics per item. */
  async recallStats(): Promise<MemoryState['recallStats']> {
    return (await this.state()).recallStats;
  }

  /** One event by id (deleted content included, marked so); `EVENT_NOT_FOUND` when absent. */
  async getEvent(id: string): Promise<EventLookup> {
    requireString(id, 'id');
    await this.models.runner.catchUp();
    const item = this.models.items.get(id);
    const event = item?.content ?? (item ? await this.log.get(id) : undefined);
    if (!item || !event) throw notFound(id, this.memoryId);
    return { event, deleted: item.deletedBy !== null, deletedBy: item.deletedBy };
  }

  /** When an item was written, every recall that used it, and the deletion that removed it. */
  async history(id: string): Promise<ItemHistory> {
    const { event, deletedBy } = await this.getEvent(id);
    return { event, recalls: this.models.items.get(id)?.recalls ?? [], deletedBy };
  }

  /** A range of the log (all of it by default). */
  async readEvents(options: ReadOptions = {}): Promise<Sequenced[]> {
    const out: Sequenced[] = [];
    for await (const event of this.log.read(options)) out.push(event);
    return out;
  }

  /** Every event from `fromSeq` (replayed from the log), then each new one as it is appended. */
  changes(options: { readonly fromSeq?: number } = {}): Observable<Sequenced> {
    return eventsFrom(this.log, options.fromSeq ?? 0);
  }

  /** Every event as the read models apply it (live only). */
  get applied$(): Observable<Sequenced> {
    return this.models.runner.applied$;
  }

  /** Resolves once the read models have applied `seq`. */
  waitFor(seq: number): Promise<void> {
    return this.models.runner.waitFor(seq);
  }

  /** The snapshot checkpoint the read models resumed from; null when they folded from zero. */
  get resumedFrom(): number | null {
    return this.models.runner.resumedFrom;
  }

  /** The seq the read models stand at. */
  get checkpoint(): number | null {
    return this.models.runner.checkpoint;
  }

  /** Stops the read models (saving a snapshot). The memledger's `close()` calls this. */
  async stop(): Promise<void> {
    await this.models.runner.stop();
  }

  private async appendOne(event: Parameters<EventLog['append']>[0][number]): Promise<Sequenced> {
    const [stored] = await this.log.append([event]);
    return stored!;
  }
}

function checkSeq(value: number, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name}: must be an integer of ${min} or more, got ${value}.`,
      {
        issues: [{ path: name, message: `must be an integer of ${min} or more` }],
      },
    );
  }
}

/** Callers from plain JavaScript or HTTP can pass anything; a wrong type is a validation error. */
function requireString(value: unknown, name: string): void {
  if (typeof value !== 'string') {
    throw new MemoryError('VALIDATION_FAILED', `Invalid ${name}: must be a string.`, {
      issues: [{ path: name, message: 'must be a string' }],
    });
  }
}

function notFound(id: string, memoryId: string): MemoryError {
  return new MemoryError('EVENT_NOT_FOUND', `Event ${id} does not exist in memory ${memoryId}.`, {
    details: { id, memoryId },
  });
}
