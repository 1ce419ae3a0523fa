/**
 * The fold's accumulator: every id maps to a small integer (its slot); what is known about an
 * item (deleted or not, its recall statistics) lives in arrays indexed by that slot. Internal to
 * the fold (fold.ts applies events to it, fold-state.ts lends it to frozen states).
 */
import type {
  ContentEvent,
  Deletion,
  Erasure,
  Sequenced,
  StoredDocument,
  StoredMessage,
} from './events.js';
import type { MemoryState, RecallStat } from './state.js';

/** A `RecallStat` the fold may still update. */
export type RecallCounter = { -readonly [K in keyof RecallStat]: RecallStat[K] };

/** One kind of content: its items in log order, and what is known of each, by index. */
export interface Slots<E extends ContentEvent> {
  /** Frozen while lent to a state; replaced by a copy before the next change. */
  items: Sequenced<E>[];
  /** 1 at the index of a deleted item; only as long as the highest index ever deleted. */
  readonly isDeleted: number[];
  /** The counters of each recalled item; `undefined` for one never recalled. */
  readonly stats: (RecallCounter | undefined)[];
  /** The seq of the deletion of each deleted item, ascending. */
  readonly deletedSeqs: number[];
}

/**
 * The fold's mutable structures. A slot names one content item: `2 * index` for a message,
 * `2 * index + 1` for a document; {@link NOT_CONTENT} marks a recall's or a deletion's id.
 */
export interface Accumulator {
  readonly messages: Slots<StoredMessage>;
  readonly documents: Slots<StoredDocument>;
  /** Every id in the log -> its slot. */
  readonly slotOf: Map<string, number>;
  readonly deleted: Map<string, Sequenced<Deletion>>;
  /** Erased id -> the Erasure that destroyed its words. */
  readonly erased: Map<string, Sequenced<Erasure>>;
  /** The slot of every recalled item, in the order of its first recall. */
  readonly recalled: number[];
  /** Recall statistics a snapshot held for ids that are not content in it, kept as they were. */
  readonly foreignStats: [string, RecallStat][];
  /** The seq the next event must carry: `lastSeq + 1`, always a number (a monomorphic field). */
  nextSeq: number;
}

export const NOT_CONTENT = -1;

export const slotsOf = <E extends ContentEvent>(items: Sequenced<E>[]): Slots<E> => ({
  items,
  isDeleted: [],
  stats: [],
  deletedSeqs: [],
});

export const kindOf = (acc: Accumulator, slot: number): Slots<ContentEvent> =>
  slot & 1 ? acc.documents : acc.messages;

export const isDeletedAt = (slots: Slots<ContentEvent>, index: number): boolean =>
  index < slots.isDeleted.length && slots.isDeleted[index] === 1;

export function markDeleted(slots: Slots<ContentEvent>, index: number, seq: number): void {
  // Grown one element at a time, so the array stays packed (and fast).
  while (slots.isDeleted.length <= index) slots.isDeleted.push(0);
  slots.isDeleted[index] = 1;
  slots.deletedSeqs.push(seq);
}

export function setCounter(
  slots: Slots<ContentEvent>,
  index: number,
  counter: RecallCounter,
): void {
  while (slots.stats.length < index) slots.stats.push(undefined);
  slots.stats[index] = counter;
}

/** The accumulator of an empty memory, or of the memory a snapshot describes. */
export function startAccumulator(from?: MemoryState): Accumulator {
  const acc: Accumulator = {
    messages: slotsOf(from ? [...from.messages] : []),
    documents: slotsOf(from ? [...from.documents] : []),
    slotOf: new Map(),
    deleted: new Map(),
    erased: new Map(Object.entries(from?.erased ?? {})),
    recalled: [],
    foreignStats: [],
    nextSeq: (from?.lastSeq ?? -1) + 1,
  };
  if (!from) return acc;
  const { slotOf } = acc;
  acc.messages.items.forEach((item, index) => slotOf.set(item.id, 2 * index));
  acc.documents.items.forEach((item, index) => slotOf.set(item.id, 2 * index + 1));
  // A snapshot keeps the deletions' ids (in `deleted`) but not the recalls', so a log resumed
  // from a snapshot cannot detect a recall id repeated across the boundary; guarded stores never
  // write one (invariant 9), and a full replay detects it.
  const deletions = Object.entries(from.deleted);
  for (const [, deletion] of deletions) slotOf.set(deletion.id, NOT_CONTENT);
  for (const [, erasure] of acc.erased) slotOf.set(erasure.id, NOT_CONTENT);
  for (const [id, deletion] of deletions) {
    acc.deleted.set(id, deletion);
    const slot = slotOf.get(id) ?? NOT_CONTENT;
    if (slot !== NOT_CONTENT) markDeleted(kindOf(acc, slot), slot >> 1, deletion.seq);
  }
  acc.messages.deletedSeqs.sort((a, b) => a - b);
  acc.documents.deletedSeqs.sort((a, b) => a - b);
  for (const [id, stat] of Object.entries(from.recallStats)) {
    const slot = slotOf.get(id) ?? NOT_CONTENT;
    if (slot === NOT_CONTENT) {
      acc.foreignStats.push([id, stat]);
    } else {
      setCounter(kindOf(acc, slot), slot >> 1, { ...stat });
      acc.recalled.push(slot);
    }
  }
  return acc;
}

export const lastSeqOf = (acc: Accumulator): number | null =>
  acc.nextSeq === 0 ? null : acc.nextSeq - 1;
