import type { ContentEvent, Deletion, Recall, Sequenced } from '../core/index.js';
import type { Projection } from './projection.js';

/** One recall that used an item: which query, when, by whom. */
export interface RecallUse {
  readonly recallId: string;
  readonly query: string;
  readonly seq: number;
  readonly timestamp: string;
  readonly actor: string | null;
  readonly sessionId: string | null;
}

/** Everything the log says about one id. */
export interface IndexedItem {
  readonly kind: Sequenced['kind'];
  readonly seq: number;
  /** The content itself (messages and documents only), for answering recalls without a read. */
  readonly content?: Sequenced<ContentEvent>;
  /** Recalls that returned this item, in log order. */
  readonly recalls: readonly RecallUse[];
  /** The Deletion that removed it, if any. */
  readonly deletedBy: Sequenced<Deletion> | null;
}

interface MutableItem {
  kind: Sequenced['kind'];
  seq: number;
  content?: Sequenced<ContentEvent>;
  recalls: RecallUse[];
  deletedBy: Sequenced<Deletion> | null;
}

/**
 * The id index: id -> kind, seq, content, the recalls that used it and the deletion that removed
 * it. It answers "get by id" and "history of one item" without scanning the log.
 */
export class ItemIndexProjection implements Projection {
  readonly name = 'item-index';
  private items = new Map<string, MutableItem>();

  apply(event: Sequenced): void {
    const item: MutableItem = { kind: event.kind, seq: event.seq, recalls: [], deletedBy: null };
    if (event.kind === 'message' || event.kind === 'document') item.content = event;
    this.items.set(event.id, item);
    if (event.kind === 'recall') {
      const use = recallUse(event);
      for (const id of new Set(event.recalled)) this.items.get(id)?.recalls.push(use);
    } else if (event.kind === 'deletion') {
      for (const id of event.targets) {
        const target = this.items.get(id);
        if (target && target.deletedBy === null) target.deletedBy = event;
      }
    }
  }

  /** What the index holds for `id`, or `undefined` when the id is not in this memory. */
  get(id: string): IndexedItem | undefined {
    return this.items.get(id.toLowerCase());
  }

  snapshot(): [string, MutableItem][] {
    return [...this.items];
  }

  restore(snapshot: unknown): void {
    this.items = new Map(snapshot as [string, MutableItem][]);
  }
}

function recallUse(recall: Sequenced<Recall>): RecallUse {
  return {
    recallId: recall.id,
    query: recall.query,
    seq: recall.seq,
    timestamp: recall.timestamp,
    actor: recall.actor,
    sessionId: recall.sessionId,
  };
}
