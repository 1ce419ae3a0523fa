import { decideAppend } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import { MEMORY, rejectionOf, viewOf } from './append-guard.fixtures.js';

describe('decideAppend', () => {
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
