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
  Deletion,
  Erasure,
  MemoryEvent,
  Recall,
  Sequenced,
  StoredDocument,
  StoredMessage,
} from './events.js';
import {
  isDeletedAt,
  kindOf,
  lastSeqOf,
  markDeleted,
  NOT_CONTENT,
  setCounter,
  startAccumulator,
  type Accumulator,
} from './fold-accumulator.js';
import { lend } from './fold-state.js';
import type { MemoryState } from './state.js';

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
  readonly messages: readonly Sequenced<StoredMessage>[];
  readonly documents: readonly Sequenced<StoredDocument>[];
  /** Deleted id -> the Deletion that deleted it. */
  readonly deleted: ReadonlyMap<string, Sequenced<Deletion>>;
  /** The deletion seq of every deleted message, ascending (deletions arrive in seq order). */
  readonly deletedMessageSeqs: readonly number[];
  /** The deletion seq of every deleted document, ascending. */
  readonly deletedDocumentSeqs: readonly number[];
  readonly lastSeq: number | null;
}

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
      acc.messages.items.push(event as Sequenced<StoredMessage>);
      break;
    case 'document':
      acc.documents.items.push(event as Sequenced<StoredDocument>);
      break;
    case 'recall':
      applyRecall(acc, event as Sequenced<Recall>);
      break;
    case 'deletion':
      applyDeletion(acc, event as Sequenced<Deletion>);
      break;
    case 'erasure':
      applyErasure(acc, event as Sequenced<Erasure>);
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

function applyErasure(acc: Accumulator, event: Sequenced<Erasure>): void {
  for (const id of event.targets) {
    const slot = acc.slotOf.get(id) ?? NOT_CONTENT;
    if (slot === NOT_CONTENT) violated(event, `erases ${id}, which is not content in this memory`);
    if (!isDeletedAt(kindOf(acc, slot), slot >> 1)) {
      violated(event, `erases ${id}, which was not deleted first`);
    }
    if (acc.erased.has(id)) violated(event, `erases ${id}, which was already erased`);
    acc.erased.set(id, event);
  }
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
