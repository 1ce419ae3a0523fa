/**
 * One memory, without a framework: record, recall, delete and erase, beside every query
 * (memory-queries.ts). Commands validate with the core factories and append through the store,
 * whose guard enforces the invariants.
 */
import {
  createDeletion,
  createDocument,
  createDeletionAndErasure,
  createErasure,
  createMessage,
  createRecall,
  type Deletion,
  type DeletionInput,
  type Document,
  type DocumentInput,
  type Erasure,
  type ErasureInput,
  type Message,
  type MessageInput,
  type Recall,
  type RecallInput,
  type Sequenced,
} from '../core/index.js';
import type { Progress } from '../read-models/index.js';
import type { EventLog } from '../store/event-log.port.js';
import type { ErasureCleanupStatus } from '../store/sealed/erasure-cleanup.js';
import type {
  DeletionAndErasure,
  ErasureOutcome,
  RecallRequest,
  RecallResult,
} from './memory.types.js';
import { MemoryQueries } from './memory-queries.js';
import { auditableRecall } from './recall.js';

/** One memory's commands and queries: {@link MemoryQueries} and what appends. */
export class MemoryHandle extends MemoryQueries {
  private recalls: Promise<unknown> = Promise.resolve();

  /** Records a message (its vector, if any, follows off the append path). */
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
   * Erases content already deleted: its words become unrecoverable (its per-item key is
   * destroyed) while the item's id, seq, times and both acts stay on record. Needs a store
   * opened with a key store (`ERASURE_UNAVAILABLE` otherwise). `cleanup` says whether old page
   * images holding the words are already scrubbed from every file, or the scrub is pending.
   */
  async eraseContent(input: ErasureInput): Promise<ErasureOutcome> {
    const erasure = await this.appendOne(createErasure(input, this.settings.defaults));
    return { erasure: erasure as Sequenced<Erasure>, cleanup: this.scrubAfterErasure() };
  }

  /**
   * Deletes and erases in one atomic append: a Deletion and an Erasure of the same targets, for
   * the same reason and requester (the "erase too" of a deletion request).
   */
  async deleteAndErase(input: DeletionInput): Promise<DeletionAndErasure> {
    const stored = await this.log.append(createDeletionAndErasure(input, this.settings.defaults));
    this.settings.projections.applyAppended(this.memoryId, stored);
    return {
      deletion: stored[0] as Sequenced<Deletion>,
      erasure: stored[1] as Sequenced<Erasure>,
      cleanup: this.scrubAfterErasure(),
    };
  }

  /**
   * Whether every erasure's words are gone from disk, or why the scrub is still pending (it asks
   * for a scrub again when one is); `done` on a store that cannot erase.
   */
  erasureCleanup(): ErasureCleanupStatus {
    const cleanup = this.settings.cleanup;
    if (cleanup === undefined) return { state: 'done' };
    return cleanup.status().state === 'done' ? { state: 'done' } : cleanup.scrub();
  }

  /** Scrubs the files once the read models dropped the words (an erasure is always sealed). */
  private scrubAfterErasure(): ErasureCleanupStatus {
    return this.settings.cleanup?.scrub() ?? { state: 'done' };
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

  /** Brings the read models up to the log's head now (on open, or after a rebuild). */
  async catchUp(progress?: Progress): Promise<number | null> {
    const seq = await this.models.catchUp(progress);
    return seq < 0 ? null : seq;
  }

  /** Drops this memory's read models and rebuilds them from the log. */
  async rebuild(progress?: Progress): Promise<number | null> {
    const seq = await this.models.rebuild(progress);
    return seq < 0 ? null : seq;
  }

  /** Ends `applied$`. The memledger calls this when it closes the memory (idle, or on close). */
  async stop(): Promise<void> {
    this.models.stop();
  }

  private async appendOne(event: Parameters<EventLog['append']>[0][number]): Promise<Sequenced> {
    const stored = await this.log.append([event]);
    this.settings.projections.applyAppended(this.memoryId, stored);
    if (event.kind === 'message' || event.kind === 'document')
      this.settings.semantic?.follower?.schedule(this.models.mem);
    return stored[0]!;
  }
}
