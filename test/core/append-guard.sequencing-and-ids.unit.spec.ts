import { decideAppend, idsNamedBy, type MemoryEvent } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import { MEMORY, rejectionOf, viewOf } from './append-guard.fixtures.js';

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
});
