/**
 * The fold behind `replay()` and every read model. It is incremental — a projection applies one
 * event at a time, a snapshot resumes from where it stopped — so it accumulates into private
 * mutable structures and hands out frozen `MemoryState` values. Nothing outside this module can
 * reach the accumulator, so the fold stays a pure function of the events it was given.
 *
 * The hot path is one hash operation per event: every id maps to a small integer (its slot), and
 * everything else known about an item (deleted or not, its recall statistics) lives in arrays
 * indexed by that slot, so a recall costs one lookup per id and no allocation beyond one counter
 * per item the first time it is recalled. `state()` lends the fold's own arrays to the frozen
 * state instead of copying them, and builds the derived fields (visible lists, `deleted`,
 * `recallStats`) on first read; the next `apply` first builds whatever is still unread and
 * copies the lent arrays (copy-on-write), so a state never changes once handed out.
 */
import { assertNever, MemoryError } from './errors.js';
import type {
  ContentEvent,
  Deletion,
  Document,
  MemoryEvent,
  Message,
  Recall,
  Sequenced,
} from './events.js';
import type { MemoryState, RecallStat } from './state.js';

/** An incremental fold of one memory's log. */
export interface Fold {
  /** Applies the next event; it must carry seq `lastSeq + 1`. */
  apply(event: MemoryEvent): void;
  /** The state after everything applied so far (frozen; cheap to call repeatedly). */
  state(): MemoryState;
  /** The seq of the last applied event, `null` when none. */
  readonly lastSeq: number | null;
  /**
   * Read-only access to the fold's own structures, without the copy `state()` makes: for read
   * models that answer as-of queries on large logs after every append. Valid until the next
   * `apply`; callers must not keep it.
   */
  view(): FoldView;
}

/** The live structures of a fold (see {@link Fold.view}). */
export interface FoldView {
  readonly messages: readonly Sequenced<Message>[];
  readonly documents: readonly Sequenced<Document>[];
  /** Deleted id -> the Deletion that deleted it. */
  readonly deleted: ReadonlyMap<string, Sequenced<Deletion>>;
  /** The deletion seq of every deleted message, ascending (deletions arrive in seq order). */
  readonly deletedMessageSeqs: readonly number[];
  /** The deletion seq of every deleted document, ascending. */
  readonly deletedDocumentSeqs: readonly number[];
  readonly lastSeq: number | null;
}

/** A `RecallStat` the fold may still update. */
type RecallCounter = { -readonly [K in keyof RecallStat]: RecallStat[K] };

/** One kind of content: its items in log order, and what is known of each, by index. */
interface Slots<E extends ContentEvent> {
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
interface Accumulator {
  readonly messages: Slots<Message>;
  readonly documents: Slots<Document>;
  /** Every id in the log -> its slot. */
  readonly slotOf: Map<string, number>;
  readonly deleted: Map<string, Sequenced<Deletion>>;
  /** The slot of every recalled item, in the order of its first recall. */
  readonly recalled: number[];
  /** Recall statistics a snapshot held for ids that are not content in it, kept as they were. */
  readonly foreignStats: [string, RecallStat][];
  /** The seq the next event must carry: `lastSeq + 1`, always a number (a monomorphic field). */
  nextSeq: number;
}

const NOT_CONTENT = -1;

const slotsOf = <E extends ContentEvent>(items: Sequenced<E>[]): Slots<E> => ({
  items,
  isDeleted: [],
  stats: [],
  deletedSeqs: [],
});

const kindOf = (acc: Accumulator, slot: number): Slots<ContentEvent> =>
  slot & 1 ? acc.documents : acc.messages;

const isDeletedAt = (slots: Slots<ContentEvent>, index: number): boolean =>
  index < slots.isDeleted.length && slots.isDeleted[index] === 1;

function markDeleted(slots: Slots<ContentEvent>, index: number, seq: number): void {
  // Grown one element at a time, so the array stays packed (and fast).
  while (slots.isDeleted.length <= index) slots.isDeleted.push(0);
  slots.isDeleted[index] = 1;
  slots.deletedSeqs.push(seq);
}

function setCounter(slots: Slots<ContentEvent>, index: number, counter: RecallCounter): void {
  while (slots.stats.length < index) slots.stats.push(undefined);
  slots.stats[index] = counter;
}

/** The accumulator of an empty memory, or of the memory a snapshot describes. */
function startAccumulator(from?: MemoryState): Accumulator {
  const acc: Accumulator = {
    messages: slotsOf(from ? [...from.messages] : []),
    documents: slotsOf(from ? [...from.documents] : []),
    slotOf: new Map(),
    deleted: new Map(),
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

const lastSeqOf = (acc: Accumulator): number | null => (acc.nextSeq === 0 ? null : acc.nextSeq - 1);

function violated(event: MemoryEvent, why: string): never {
  throw new MemoryError('LOG_INVARIANT_VIOLATED', `Event ${event.id} at seq ${event.seq} ${why}.`, {
    details: { id: event.id, seq: event.seq },
  });
}

function outOfOrder({ id, seq }: MemoryEvent, expectedSeq: number): never {
  const why = seq === null ? '' : seq < expectedSeq ? 'out of order' : 'after a gap';
  throw new MemoryError(
    'REPLAY_ORDER',
    seq === null
      ? `Event ${id} has no seq; only stored events can be replayed.`
      : `Event ${id} has seq ${seq} but seq ${expectedSeq} was expected (${why}).`,
    { details: seq === null ? { id, expectedSeq } : { id, seq, expectedSeq } },
  );
}

function applyEvent(acc: Accumulator, event: MemoryEvent): void {
  const seq = event.seq;
  if (seq !== acc.nextSeq) outOfOrder(event, acc.nextSeq);
  const { slotOf } = acc;
  const size = slotOf.size;
  const kind = event.kind;
  slotOf.set(
    event.id,
    kind === 'message'
      ? 2 * acc.messages.items.length
      : kind === 'document'
        ? 2 * acc.documents.items.length + 1
        : NOT_CONTENT,
  );
  // Setting an id already in the map leaves its size unchanged: a repeated id, one hash op.
  if (slotOf.size === size) violated(event, 'repeats an id already in the log');
  switch (event.kind) {
    case 'message':
      acc.messages.items.push(event as Sequenced<Message>);
      break;
    case 'document':
      acc.documents.items.push(event as Sequenced<Document>);
      break;
    case 'recall':
      applyRecall(acc, event as Sequenced<Recall>);
      break;
    case 'deletion':
      applyDeletion(acc, event as Sequenced<Deletion>);
      break;
    default:
      assertNever(event, 'event kind');
  }
  acc.nextSeq = seq + 1;
}

function applyRecall(acc: Accumulator, event: Sequenced<Recall>): void {
  const { seq, timestamp, recalled } = event;
  for (let i = 0; i < recalled.length; i++) {
    const id = recalled[i]!;
    const slot = acc.slotOf.get(id) ?? NOT_CONTENT;
    if (slot === NOT_CONTENT) violated(event, `recalls ${id}, which is not content in this memory`);
    const slots = kindOf(acc, slot);
    const index = slot >> 1;
    if (isDeletedAt(slots, index)) violated(event, `recalls ${id}, which was already deleted`);
    const counter = slots.stats[index];
    if (counter === undefined) {
      setCounter(slots, index, { count: 1, lastRecalledAt: timestamp, lastRecalledSeq: seq });
      acc.recalled.push(slot);
    } else if (counter.lastRecalledSeq !== seq) {
      // (An id listed twice in one recall counts once: its counter already carries this seq.)
      counter.count += 1;
      counter.lastRecalledAt = timestamp;
      counter.lastRecalledSeq = seq;
    }
  }
}

function applyDeletion(acc: Accumulator, event: Sequenced<Deletion>): void {
  for (const id of event.targets) {
    const slot = acc.slotOf.get(id) ?? NOT_CONTENT;
    if (slot === NOT_CONTENT) violated(event, `deletes ${id}, which is not content in this memory`);
    const slots = kindOf(acc, slot);
    if (isDeletedAt(slots, slot >> 1)) violated(event, `deletes ${id}, which was already deleted`);
    acc.deleted.set(id, event);
    markDeleted(slots, slot >> 1, event.seq);
  }
}

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
function lend(acc: Accumulator): [MemoryState, () => void] {
  // The builders hold what they read, never the accumulator: its id index is the bulk of it.
  const { messages, documents } = acc;
  const source: Accumulator = { ...acc, slotOf: new Map() };
  const visibleMessages = once(() => visible(messages));
  const visibleDocuments = once(() => visible(documents));
  const deleted = once(() => Object.freeze(Object.fromEntries(source.deleted)));
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
    get recallStats() {
      return recallStats();
    },
    lastSeq: lastSeqOf(acc),
  });
  const settle = () =>
    [visibleMessages, visibleDocuments, deleted, recallStats].forEach((f) => f());
  return [state, settle];
}

/** Starts a fold, empty or from a state produced earlier (a snapshot). */
export function startFold(from?: MemoryState): Fold {
  const acc = startAccumulator(from);
  let cached: MemoryState | undefined = from;
  let loan: (() => void) | undefined;
  return {
    apply(event: MemoryEvent): void {
      if (loan !== undefined) {
        // Copy-on-write: the state handed out keeps the frozen arrays and its derived fields.
        loan();
        loan = undefined;
        acc.messages.items = acc.messages.items.slice();
        acc.documents.items = acc.documents.items.slice();
      }
      applyEvent(acc, event);
      cached = undefined;
    },
    state(): MemoryState {
      if (cached === undefined) [cached, loan] = lend(acc);
      return cached;
    },
    get lastSeq() {
      return lastSeqOf(acc);
    },
    view: () => ({
      messages: acc.messages.items,
      documents: acc.documents.items,
      deleted: acc.deleted,
      deletedMessageSeqs: acc.messages.deletedSeqs,
      deletedDocumentSeqs: acc.documents.deletedSeqs,
      lastSeq: lastSeqOf(acc),
    }),
  };
}
