import {
  decideAppend,
  idsNamedBy,
  isMemoryError,
  type LogView,
  type MemoryError,
  type MemoryErrorCode,
  type MemoryEvent,
  type Sequenced,
  type StoredEntry,
} from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';

const MEMORY = 'team-a';

/** A view of a stored log, as a store would build it for the guard. */
function viewOf(log: readonly Sequenced[]): LogView {
  const entries = new Map<string, StoredEntry>();
  for (const event of log) {
    entries.set(event.id, { kind: event.kind, seq: event.seq, deletedBy: null, event });
    if (event.kind === 'deletion') {
      for (const id of event.targets) {
        entries.set(id, { ...entries.get(id)!, deletedBy: { id: event.id, seq: event.seq } });
      }
    }
  }
  return { memoryId: MEMORY, lastSeq: log.at(-1)?.seq ?? null, entries };
}

/** Given a stored log, when `events` are appended (with `expected`), then this error is thrown. */
function rejectionOf(
  code: MemoryErrorCode,
  log: readonly Sequenced[],
  events: readonly MemoryEvent[],
  expected?: number | null,
): MemoryError {
  try {
    decideAppend(viewOf(log), events, expected);
  } catch (error) {
    if (isMemoryError(error, code)) return error;
    throw error;
  }
  throw new Error(`expected ${code}, but the append was accepted`);
}

describe('decideAppend', () => {
  describe('sequencing', () => {
    it('numbers a batch on an empty log from seq 0', () => {
      const batch = [message('a'), doc(), message('b')];
      const { toWrite, stored } = decideAppend(viewOf([]), batch);
      expect(toWrite.map((e) => e.seq)).toEqual([0, 1, 2]);
      expect(toWrite).toEqual(batch.map((e, seq) => ({ ...e, seq })));
      expect(stored).toEqual(toWrite);
    });

    it('numbers a batch right after view.lastSeq', () => {
      const log = sequenced([message('a'), message('b'), message('c')]);
      const { toWrite } = decideAppend(viewOf(log), [message('d'), recallOf([log[0]!.id])]);
      expect(toWrite.map((e) => e.seq)).toEqual([3, 4]);
    });

    it('returns frozen sequenced copies and leaves the caller’s events unsequenced', () => {
      const m = message();
      const { toWrite } = decideAppend(viewOf([]), [m]);
      expect(Object.isFrozen(toWrite[0])).toBe(true);
      expect(m.seq).toBeNull();
    });

    it('writes nothing for an empty append', () => {
      expect(decideAppend(viewOf([]), [], 5)).toEqual({ toWrite: [], stored: [] });
    });

    it('names every id an append touches: its own ids, deletion targets and recalled ids', () => {
      const [a, b, c] = [message('a'), message('b'), message('c')];
      const r = recallOf([a.id]);
      const d = deletionOf([b.id, c.id]);
      expect(idsNamedBy([r, d])).toEqual(new Set([r.id, a.id, d.id, b.id, c.id]));
    });
  });

  describe('ALREADY_SEQUENCED', () => {
    it('rejects an event that already has a seq, naming the id and the seq', () => {
      const m = { ...message(), seq: 7 };
      const error = rejectionOf('ALREADY_SEQUENCED', [], [message('fine'), m]);
      expect(error.message).toBe(`Event ${m.id} already has seq 7; the store assigns seq.`);
      expect(error.details).toEqual({ id: m.id, seq: 7 });
    });

    it('rejects a stored event appended again as stored, seq and all', () => {
      const log = sequenced([message()]);
      const error = rejectionOf('ALREADY_SEQUENCED', log, [log[0]!]);
      expect(error.message).toBe(`Event ${log[0]!.id} already has seq 0; the store assigns seq.`);
    });
  });

  describe('ID_CONFLICT and idempotency (invariant 9)', () => {
    it('rejects the same id twice in one append, even with the same content', () => {
      const m = message();
      const error = rejectionOf('ID_CONFLICT', [], [m, doc(), m]);
      expect(error.message).toBe(`Event ${m.id} appears twice in one append.`);
    });

    it('rejects a stored id appended with different content, naming the memory and seq', () => {
      // given a stored message, when an edited copy with the same id is appended
      const original = message('original');
      const log = sequenced([doc(), original]);
      const changed = message('changed', { id: original.id });
      // then it is a conflict, not a duplicate
      const error = rejectionOf('ID_CONFLICT', log, [changed]);
      expect(error.message).toBe(
        `Event ${changed.id} is already in memory ${MEMORY} (seq 1) with different content.`,
      );
      expect(error.details).toEqual({ id: changed.id, seq: 1 });
    });

    it('rejects a stored id reused by an event of another kind', () => {
      const log = sequenced([message()]);
      const other = recallOf([], { id: log[0]!.id });
      expect(rejectionOf('ID_CONFLICT', log, [other]).message).toContain(
        `Event ${other.id} is already in memory`,
      );
    });

    it('answers an event already stored with the same content with the stored event, writing nothing', () => {
      // given a stored message
      const m = message();
      const log = sequenced([doc(), m]);
      // when the same (unsequenced) event is appended again
      const decision = decideAppend(viewOf(log), [m]);
      // then the stored event comes back and nothing is written
      expect(decision.toWrite).toEqual([]);
      expect(decision.stored).toEqual([log[1]]);
      expect(decision.stored[0]).toBe(log[1]);
    });

    it('treats equal content with keys in another order as the same event', () => {
      const m = message();
      const log = sequenced([m]);
      const reordered = Object.fromEntries(Object.entries(m).reverse()) as MemoryEvent;
      expect(decideAppend(viewOf(log), [reordered]).toWrite).toEqual([]);
    });

    it('ignores the expected position when the whole append is a duplicate', () => {
      const m = message();
      const log = sequenced([m, message('b')]);
      for (const expected of [0, 9, null]) {
        expect(decideAppend(viewOf(log), [m], expected)).toEqual({ toWrite: [], stored: [log[0]] });
      }
    });

    it('writes only the new events of a mixed batch and answers in the caller’s order', () => {
      const stored = message('stored');
      const log = sequenced([stored]);
      const [n1, n2] = [message('new 1'), doc('new 2')];
      const decision = decideAppend(viewOf(log), [n1, stored, n2]);
      expect(decision.toWrite).toEqual([
        { ...n1, seq: 1 },
        { ...n2, seq: 2 },
      ]);
      expect(decision.stored).toEqual([{ ...n1, seq: 1 }, log[0], { ...n2, seq: 2 }]);
    });
  });

  describe('EXPECTED_SEQ_MISMATCH', () => {
    it('rejects an append whose expected last seq is not the log’s', () => {
      const log = sequenced([message('a'), message('b'), message('c')]);
      const error = rejectionOf('EXPECTED_SEQ_MISMATCH', log, [message()], 1);
      expect(error.message).toBe(`Memory ${MEMORY} is at seq 2, not 1 as expected.`);
      expect(error.details).toEqual({ memoryId: MEMORY, expectedLastSeq: 1, actualLastSeq: 2 });
    });

    it('rejects an expected seq on an empty log', () => {
      const error = rejectionOf('EXPECTED_SEQ_MISMATCH', [], [message()], 0);
      expect(error.message).toBe(`Memory ${MEMORY} is at seq none (empty), not 0 as expected.`);
    });

    it('rejects an expected empty log (null) when the log has events', () => {
      const log = sequenced([message()]);
      const error = rejectionOf('EXPECTED_SEQ_MISMATCH', log, [message()], null);
      expect(error.message).toBe(`Memory ${MEMORY} is at seq 0, not none (empty) as expected.`);
    });

    it('accepts an append whose expectation matches, including null for an empty log', () => {
      const log = sequenced([message()]);
      expect(decideAppend(viewOf(log), [message()], 0).toWrite[0]!.seq).toBe(1);
      expect(decideAppend(viewOf([]), [message()], null).toWrite[0]!.seq).toBe(0);
    });

    it('rejects a mixed batch with a wrong expectation, since it writes something new', () => {
      const m = message();
      const log = sequenced([m]);
      rejectionOf('EXPECTED_SEQ_MISMATCH', log, [m, message('new')], 5);
    });
  });

  describe('deletion targets (invariant 5)', () => {
    it('accepts a deletion of stored, undeleted content', () => {
      const log = sequenced([message(), doc()]);
      const d = deletionOf([log[0]!.id, log[1]!.id]);
      expect(decideAppend(viewOf(log), [d]).toWrite).toEqual([{ ...d, seq: 2 }]);
    });

    it('rejects a deletion of an unknown id', () => {
      const ghost = message().id;
      const error = rejectionOf('DELETION_TARGET_UNKNOWN', sequenced([message()]), [
        deletionOf([ghost]),
      ]);
      expect(error.message).toBe(`Deletion target ${ghost} does not exist in memory ${MEMORY}.`);
      expect(error.details).toEqual({ id: ghost, memoryId: MEMORY });
    });

    it('rejects a deletion whose target is a recall', () => {
      const log = sequenced([recallOf([])]);
      const error = rejectionOf('DELETION_TARGET_NOT_CONTENT', log, [deletionOf([log[0]!.id])]);
      expect(error.message).toBe(
        `Deletion target ${log[0]!.id} is a recall, not a message or document.`,
      );
    });

    it('rejects a deletion whose target is a deletion', () => {
      const m = message();
      const d = deletionOf([m.id]);
      const error = rejectionOf('DELETION_TARGET_NOT_CONTENT', sequenced([m, d]), [
        deletionOf([d.id]),
      ]);
      expect(error.message).toBe(
        `Deletion target ${d.id} is a deletion, not a message or document.`,
      );
    });

    it('rejects a deletion of content already deleted, naming the earlier deletion and its seq', () => {
      const m = message();
      const first = deletionOf([m.id]);
      const log = sequenced([m, message('other'), first]);
      const error = rejectionOf('ALREADY_DELETED', log, [deletionOf([m.id])]);
      expect(error.message).toBe(
        `Deletion target ${m.id} was already deleted by ${first.id} at seq 2.`,
      );
      expect(error.details).toEqual({ id: m.id, deletedBy: first.id, deletedAtSeq: 2 });
    });

    it('accepts a deletion of content written earlier in the same append', () => {
      const m = message();
      const d = deletionOf([m.id]);
      expect(decideAppend(viewOf([]), [m, d]).toWrite.map((e) => e.seq)).toEqual([0, 1]);
    });

    it('rejects a deletion of content written later in the same append', () => {
      const m = message();
      const error = rejectionOf('DELETION_TARGET_UNKNOWN', [], [deletionOf([m.id]), m]);
      expect(error.message).toContain(m.id);
    });

    it('rejects a deletion of a recall written earlier in the same append', () => {
      const m = message();
      const r = recallOf([m.id]);
      const error = rejectionOf('DELETION_TARGET_NOT_CONTENT', sequenced([m]), [
        r,
        deletionOf([r.id]),
      ]);
      expect(error.message).toBe(`Deletion target ${r.id} is a recall, not a message or document.`);
    });

    it('rejects a second deletion, in the same append, of content the first one deleted', () => {
      const m = message();
      const first = deletionOf([m.id]);
      const error = rejectionOf('ALREADY_DELETED', sequenced([m]), [first, deletionOf([m.id])]);
      expect(error.message).toBe(
        `Deletion target ${m.id} was already deleted by ${first.id} at seq 1.`,
      );
    });
  });

  describe('recalled ids (invariant 8)', () => {
    it('accepts a recall of stored, visible content', () => {
      const log = sequenced([message(), doc()]);
      const r = recallOf([log[1]!.id, log[0]!.id]);
      expect(decideAppend(viewOf(log), [r]).toWrite).toEqual([{ ...r, seq: 2 }]);
    });

    it('rejects a recall of an unknown id', () => {
      const ghost = doc().id;
      const error = rejectionOf('RECALL_TARGET_UNKNOWN', [], [recallOf([ghost])]);
      expect(error.message).toBe(`Recalled id ${ghost} does not exist in memory ${MEMORY}.`);
    });

    it('rejects a recall of a recall', () => {
      const log = sequenced([recallOf([])]);
      const error = rejectionOf('RECALL_TARGET_NOT_CONTENT', log, [recallOf([log[0]!.id])]);
      expect(error.message).toBe(
        `Recalled id ${log[0]!.id} is a recall, not a message or document.`,
      );
    });

    it('rejects a recall of deleted content, naming the deletion and its seq', () => {
      const m = message();
      const d = deletionOf([m.id]);
      const error = rejectionOf('RECALL_TARGET_DELETED', sequenced([m, d]), [recallOf([m.id])]);
      expect(error.message).toBe(`Recalled id ${m.id} was already deleted by ${d.id} at seq 1.`);
    });

    it('rejects a recall of content deleted earlier in the same append', () => {
      const m = message();
      const d = deletionOf([m.id]);
      const error = rejectionOf('RECALL_TARGET_DELETED', sequenced([message('x'), m]), [
        d,
        recallOf([m.id]),
      ]);
      expect(error.message).toBe(`Recalled id ${m.id} was already deleted by ${d.id} at seq 2.`);
    });

    it('accepts a recall of content written earlier in the same append', () => {
      const m = message();
      const r = recallOf([m.id]);
      expect(decideAppend(viewOf([]), [m, r]).toWrite).toEqual([
        { ...m, seq: 0 },
        { ...r, seq: 1 },
      ]);
    });

    it('rejects a recall of content written later in the same append', () => {
      const m = message();
      rejectionOf('RECALL_TARGET_UNKNOWN', [], [recallOf([m.id]), m]);
    });

    it('accepts a recall of a deleted item’s neighbours and rejects the one deleted id among them', () => {
      const [a, b] = [message('a'), message('b')];
      const log = sequenced([a, b, deletionOf([b.id])]);
      expect(decideAppend(viewOf(log), [recallOf([a.id])]).toWrite).toHaveLength(1);
      expect(rejectionOf('RECALL_TARGET_DELETED', log, [recallOf([a.id, b.id])]).message).toContain(
        b.id,
      );
    });
  });
});
