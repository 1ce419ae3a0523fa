/**
 * Frozen states lent from the fold's accumulator: its arrays frozen in place, and the derived
 * fields (visible lists, `deleted`, `recallStats`) built on first read. Internal to the fold.
 */
import type { ContentEvent, Sequenced } from './events.js';
import { lastSeqOf, type Accumulator, type Slots } from './fold-accumulator.js';
import type { MemoryState, RecallStat } from './state.js';

function visible<E extends ContentEvent>(slots: Slots<E>): readonly Sequenced<E>[] {
  const { items, isDeleted, deletedSeqs } = slots;
  if (deletedSeqs.length === 0) return items;
  // Sized once and filled in place: no growth copies on the million-item path.
  const out = new Array<Sequenced<E>>(items.length - deletedSeqs.length);
  let j = 0;
  for (let i = 0; i < items.length; i++) {
    if (i >= isDeleted.length || isDeleted[i] !== 1) out[j++] = items[i]!;
  }
  return Object.freeze(out);
}

/** `recallStats` as a state shows it: frozen copies of the counters, in first-recall order. */
function recallStatsOf({
  messages,
  documents,
  recalled,
  foreignStats,
}: Accumulator): Readonly<Record<string, RecallStat>> {
  const out: Record<string, RecallStat> = Object.fromEntries(foreignStats);
  for (const slot of recalled) {
    const { items, stats } = slot & 1 ? documents : messages;
    const { count, lastRecalledAt, lastRecalledSeq } = stats[slot >> 1]!;
    out[items[slot >> 1]!.id] = Object.freeze({ count, lastRecalledAt, lastRecalledSeq });
  }
  return Object.freeze(out);
}

/** `build`, run on the first call only (and then let go, with all it holds). */
function once<T>(build: () => T): () => T {
  let pending: (() => T) | undefined = build;
  let value: T | undefined;
  return () => {
    if (pending !== undefined) [value, pending] = [pending(), undefined];
    return value as T;
  };
}

/**
 * A frozen state made of the accumulator's own arrays (frozen in place), whose derived fields
 * (visible lists, `deleted`, `recallStats`) are built on first read, and the function that
 * builds them all: the fold calls it before changing anything they are built from.
 */
export function lend(acc: Accumulator): [MemoryState, () => void] {
  // The builders hold what they read, never the accumulator: its id index is the bulk of it.
  const { messages, documents } = acc;
  const source: Accumulator = { ...acc, slotOf: new Map() };
  const visibleMessages = once(() => visible(messages));
  const visibleDocuments = once(() => visible(documents));
  const deleted = once(() => Object.freeze(Object.fromEntries(source.deleted)));
  const erased = once(() => Object.freeze(Object.fromEntries(source.erased)));
  const recallStats = once(() => recallStatsOf(source));
  const state: MemoryState = Object.freeze({
    messages: Object.freeze(messages.items),
    documents: Object.freeze(documents.items),
    get visibleMessages() {
      return visibleMessages();
    },
    get visibleDocuments() {
      return visibleDocuments();
    },
    get deleted() {
      return deleted();
    },
    get erased() {
      return erased();
    },
    get recallStats() {
      return recallStats();
    },
    lastSeq: lastSeqOf(acc),
  });
  const settle = () =>
    [visibleMessages, visibleDocuments, deleted, erased, recallStats].forEach((f) => f());
  return [state, settle];
}
