import { createMessage, createRecall, replay, type MemoryEvent } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, message, recallOf } from '../support/events.js';
import { errorOf } from './replay.fixtures.js';

describe('replay', () => {
  describe('REPLAY_ORDER', () => {
    it('rejects an event without seq', () => {
      const m = message();
      const error = errorOf('REPLAY_ORDER', () => replay([m]));
      expect(error.message).toBe(`Event ${m.id} has no seq; only stored events can be replayed.`);
      expect(error.details).toEqual({ id: m.id, expectedSeq: 0 });
    });

    it('rejects an unsequenced event in the middle of a sequenced log', () => {
      const [a, b] = [message('a'), message('b')];
      const error = errorOf('REPLAY_ORDER', () => replay([{ ...a, seq: 0 }, b]));
      expect(error.details).toEqual({ id: b.id, expectedSeq: 1 });
    });

    it('rejects events out of order', () => {
      const log = sequenced([message('a'), message('b'), message('c')]);
      const error = errorOf('REPLAY_ORDER', () => replay([log[0]!, log[2]!, log[1]!]));
      expect(error.message).toBe(
        `Event ${log[2]!.id} has seq 2 but seq 1 was expected (after a gap).`,
      );
    });

    it('rejects a seq that goes backwards as out of order', () => {
      const log = sequenced([message('a'), message('b')]);
      const repeatedSeq = { ...message('c'), seq: 1 };
      const error = errorOf('REPLAY_ORDER', () => replay([...log, repeatedSeq]));
      expect(error.message).toBe(
        `Event ${repeatedSeq.id} has seq 1 but seq 2 was expected (out of order).`,
      );
      expect(error.details).toEqual({ id: repeatedSeq.id, seq: 1, expectedSeq: 2 });
    });

    it('rejects a gap', () => {
      const log = sequenced([message('a'), message('b'), message('c')]);
      const error = errorOf('REPLAY_ORDER', () => replay([log[0]!, log[2]!]));
      expect(error.message).toContain('after a gap');
    });

    it('rejects a log that does not start at seq 0', () => {
      const log = sequenced([message('a'), message('b')]);
      const error = errorOf('REPLAY_ORDER', () => replay(log.slice(1)));
      expect(error.message).toBe(
        `Event ${log[1]!.id} has seq 1 but seq 0 was expected (after a gap).`,
      );
    });
  });

  describe('LOG_INVARIANT_VIOLATED: a log no guarded store could write', () => {
    const violation = (log: readonly MemoryEvent[]) =>
      errorOf('LOG_INVARIANT_VIOLATED', () => replay(log));

    it('rejects a recall of deleted content, naming the recall, its seq and the id', () => {
      const m = message();
      const r = recallOf([m.id]);
      const error = violation(sequenced([m, deletionOf([m.id]), r]));
      expect(error.message).toBe(
        `Event ${r.id} at seq 2 recalls ${m.id}, which was already deleted.`,
      );
      expect(error.details).toEqual({ id: r.id, seq: 2 });
    });

    it('rejects a recall of an unknown id', () => {
      const ghost = message().id;
      const r = recallOf([ghost]);
      expect(violation(sequenced([r])).message).toBe(
        `Event ${r.id} at seq 0 recalls ${ghost}, which is not content in this memory.`,
      );
    });

    it('rejects a recall of a recall', () => {
      const first = recallOf([]);
      const second = recallOf([first.id]);
      expect(violation(sequenced([first, second])).message).toContain(
        `recalls ${first.id}, which is not content`,
      );
    });

    it('rejects a recall of content written after it', () => {
      const m = message();
      expect(violation(sequenced([recallOf([m.id]), m])).message).toContain(`recalls ${m.id}`);
    });

    it('rejects a deletion of an unknown id', () => {
      const ghost = message().id;
      const del = deletionOf([ghost]);
      expect(violation(sequenced([message(), del])).message).toBe(
        `Event ${del.id} at seq 1 deletes ${ghost}, which is not content in this memory.`,
      );
    });

    it('rejects a deletion of a deletion', () => {
      const m = message();
      const first = deletionOf([m.id]);
      const second = deletionOf([first.id]);
      expect(violation(sequenced([m, first, second])).message).toContain(
        `deletes ${first.id}, which is not content`,
      );
    });

    it('rejects a second deletion of the same content', () => {
      const m = message();
      const second = deletionOf([m.id]);
      expect(violation(sequenced([m, deletionOf([m.id]), second])).message).toBe(
        `Event ${second.id} at seq 2 deletes ${m.id}, which was already deleted.`,
      );
    });

    it('rejects a content id written twice', () => {
      const m = message();
      expect(violation(sequenced([m, m])).message).toBe(
        `Event ${m.id} at seq 1 repeats an id already in the log.`,
      );
    });

    it('rejects a recall id written twice', () => {
      const r = recallOf([]);
      expect(violation(sequenced([r, r])).message).toContain('repeats an id already in the log');
    });

    it('rejects a recall whose id is already a message', () => {
      const m = createMessage({ speaker: 'u', content: 'x' });
      const r = createRecall({ query: 'q', recalled: [], id: m.id });
      expect(violation(sequenced([m, r])).message).toContain('repeats an id already in the log');
    });
  });
});
