import {
  createMessage,
  createRecall,
  isMemoryError,
  replay,
  type MemoryError,
  type MemoryErrorCode,
  type MemoryEvent,
} from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';

/** Runs `fn` and returns the MemoryError of `code` it throws; fails otherwise. */
function errorOf(code: MemoryErrorCode, fn: () => unknown): MemoryError {
  try {
    fn();
  } catch (error) {
    if (isMemoryError(error, code)) return error;
    throw error;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

const ids = (items: readonly { id: string }[]) => items.map((item) => item.id);

/**
 * A small story used by several tests:
 * 0 m1, 1 d1, 2 m2, 3 recall [m1, d1], 4 delete [m1], 5 recall [d1], 6 m3
 */
function story() {
  const m1 = message('first');
  const d1 = doc('runbook text');
  const m2 = message('second');
  const r1 = recallOf([m1.id, d1.id]);
  const del = deletionOf([m1.id]);
  const r2 = recallOf([d1.id]);
  const m3 = message('third');
  const events = [m1, d1, m2, r1, del, r2, m3];
  return { m1, d1, m2, r1, del, r2, m3, events, log: sequenced(events) };
}

describe('replay', () => {
  describe('MemoryState', () => {
    it('gives the empty memory with lastSeq null for an empty log', () => {
      expect(replay([])).toEqual({
        messages: [],
        documents: [],
        visibleMessages: [],
        visibleDocuments: [],
        deleted: {},
        recallStats: {},
        lastSeq: null,
      });
    });

    it('lists every message and document ever written, in log order, with their seqs', () => {
      // given interleaved messages and documents, some later deleted
      const { m1, d1, m2, m3, log } = story();
      // when replayed
      const state = replay(log);
      // then both lists hold everything in seq order
      expect(ids(state.messages)).toEqual([m1.id, m2.id, m3.id]);
      expect(ids(state.documents)).toEqual([d1.id]);
      expect(state.messages.map((m) => m.seq)).toEqual([0, 2, 6]);
      expect(state.messages[0]).toEqual(log[0]);
      expect(state.lastSeq).toBe(6);
    });

    it('leaves deleted content out of the visible lists only', () => {
      // given the story plus a second document and a deletion of the first one
      const { m1, d1, m2, m3, events } = story();
      const d2 = doc('second doc');
      // when replayed
      const state = replay(sequenced([...events, d2, deletionOf([d1.id])]));
      // then visible lists drop the deleted items and the full lists keep them
      expect(ids(state.visibleMessages)).toEqual([m2.id, m3.id]);
      expect(ids(state.visibleDocuments)).toEqual([d2.id]);
      expect(ids(state.messages)).toEqual([m1.id, m2.id, m3.id]);
      expect(ids(state.documents)).toEqual([d1.id, d2.id]);
    });

    it('maps each deleted id to the Deletion event that deleted it, with its seq', () => {
      // given one deletion of two items and a later one of a third
      const a = message('a');
      const b = message('b');
      const c = doc('c');
      const first = deletionOf([a.id, b.id]);
      const second = deletionOf([c.id]);
      const log = sequenced([a, b, c, first, second]);
      // when replayed
      const { deleted } = replay(log);
      // then every target maps to its deletion
      expect(deleted).toEqual({ [a.id]: log[3], [b.id]: log[3], [c.id]: log[4] });
      expect(deleted[a.id]!.seq).toBe(3);
    });

    it('counts recalls per item with the timestamp and seq of the latest one', () => {
      const { m1, d1, r1, r2, log } = story();
      const { recallStats } = replay(log);
      expect(recallStats).toEqual({
        [m1.id]: { count: 1, lastRecalledAt: r1.timestamp, lastRecalledSeq: 3 },
        [d1.id]: { count: 2, lastRecalledAt: r2.timestamp, lastRecalledSeq: 5 },
      });
    });

    it('has no recallStats entry for an item never recalled', () => {
      const { m2, m3, log } = story();
      const { recallStats } = replay(log);
      expect(m2.id in recallStats).toBe(false);
      expect(m3.id in recallStats).toBe(false);
    });

    it('adds no recallStats entry for a recall that returned nothing', () => {
      const m = message();
      expect(replay(sequenced([m, recallOf([])])).recallStats).toEqual({});
    });

    it('counts an id listed twice in one recall once', () => {
      const m = message();
      const state = replay(sequenced([m, recallOf([m.id, m.id])]));
      expect(state.recallStats[m.id]!.count).toBe(1);
    });

    it('takes lastRecalledAt from the recall with the highest seq, even when it is backdated', () => {
      // given a live recall, then an imported recall with an older timestamp
      const m = message();
      const live = recallOf([m.id], { timestamp: '2026-05-01T00:00:00Z' });
      const imported = recallOf([m.id], { timestamp: '2020-01-01T00:00:00Z' });
      // when replayed, then seq decides which recall is the last one
      expect(replay(sequenced([m, live, imported])).recallStats[m.id]).toEqual({
        count: 2,
        lastRecalledAt: '2020-01-01T00:00:00.000Z',
        lastRecalledSeq: 2,
      });
    });

    it('keeps content order by seq, not by timestamp', () => {
      const late = message('late', { timestamp: '2030-01-01T00:00:00Z' });
      const early = message('early', { timestamp: '2000-01-01T00:00:00Z' });
      expect(ids(replay(sequenced([late, early])).messages)).toEqual([late.id, early.id]);
    });

    it('returns a frozen state: the state, its lists, maps and stats', () => {
      const { m1, log } = story();
      const state = replay(log);
      for (const part of [
        state,
        state.messages,
        state.documents,
        state.visibleMessages,
        state.visibleDocuments,
        state.deleted,
        state.recallStats,
        state.recallStats[m1.id],
      ]) {
        expect(Object.isFrozen(part)).toBe(true);
      }
      expect(() => (state.messages as unknown[]).push(m1)).toThrow(TypeError);
    });

    it('gives deep-equal states for two replays of the same log, and leaves the log unchanged', () => {
      const { log } = story();
      const copy = structuredClone(log);
      expect(replay(log)).toEqual(replay(log));
      expect(log).toEqual(copy);
    });

    it('accepts any iterable of events, such as a generator', () => {
      const { log } = story();
      function* events(): Generator<MemoryEvent> {
        yield* log;
      }
      expect(replay(events())).toEqual(replay(log));
    });
  });

  describe('upToSeq', () => {
    it('gives the state as it stood right after event n', () => {
      // given content deleted at seq 4
      const { m1, log } = story();
      // when replayed up to 3, then m1 is still visible and the later events are absent
      const before = replay(log, { upToSeq: 3 });
      expect(before.lastSeq).toBe(3);
      expect(ids(before.visibleMessages)).toEqual([m1.id, log[2]!.id]);
      expect(before.deleted).toEqual({});
      expect(before.recallStats[log[1]!.id]!.count).toBe(1);
      // when replayed up to 4, then the deletion is in
      const after = replay(log, { upToSeq: 4 });
      expect(after.lastSeq).toBe(4);
      expect(ids(after.visibleMessages)).toEqual([log[2]!.id]);
      expect(Object.keys(after.deleted)).toEqual([m1.id]);
    });

    it('gives the state after the first event for upToSeq 0', () => {
      const { m1, log } = story();
      const state = replay(log, { upToSeq: 0 });
      expect(ids(state.messages)).toEqual([m1.id]);
      expect(state.lastSeq).toBe(0);
    });

    it('gives the empty memory for upToSeq -1', () => {
      const { log } = story();
      expect(replay(log, { upToSeq: -1 })).toEqual(replay([]));
    });

    it('gives the whole log for an upToSeq past its end, with lastSeq the real last seq', () => {
      const { log } = story();
      const state = replay(log, { upToSeq: 1000 });
      expect(state).toEqual(replay(log));
      expect(state.lastSeq).toBe(6);
    });

    it('equals the replay of the first n + 1 events for every n', () => {
      const { log } = story();
      for (let n = 0; n < log.length; n++) {
        expect(replay(log, { upToSeq: n })).toEqual(replay(log.slice(0, n + 1)));
      }
    });

    it('stops before a malformed event that lies past the bound', () => {
      // given a log whose event 2 is out of order, then replaying up to 1 never reaches it
      const { log } = story();
      const broken = [log[0]!, log[1]!, { ...log[2]!, seq: 9 }];
      expect(replay(broken, { upToSeq: 1 }).lastSeq).toBe(1);
    });
  });

  describe('from a snapshot', () => {
    it('resumes from a state taken at seq k and equals the full replay, for every k', () => {
      const { log } = story();
      const full = replay(log);
      for (let k = 0; k < log.length; k++) {
        // given a snapshot at k
        const snapshot = replay(log.slice(0, k + 1));
        // when the rest of the log is folded onto it
        const resumed = replay(log.slice(k + 1), { from: snapshot });
        // then it is the full state
        expect(resumed).toEqual(full);
      }
    });

    it('resumes and stops at upToSeq', () => {
      const { log } = story();
      const snapshot = replay(log.slice(0, 3));
      expect(replay(log.slice(3), { from: snapshot, upToSeq: 4 })).toEqual(
        replay(log, { upToSeq: 4 }),
      );
    });

    it('returns the snapshot state when there is nothing after it', () => {
      const { log } = story();
      const snapshot = replay(log);
      expect(replay([], { from: snapshot })).toEqual(snapshot);
      expect(replay([], { from: snapshot, upToSeq: 6 })).toEqual(snapshot);
    });

    it('does not change the snapshot it resumed from', () => {
      const { log } = story();
      const snapshot = replay(log.slice(0, 3));
      const copy = structuredClone(snapshot);
      replay(log.slice(3), { from: snapshot });
      expect(snapshot).toEqual(copy);
    });

    it('rejects an upToSeq earlier than the snapshot', () => {
      const { log } = story();
      const snapshot = replay(log.slice(0, 4));
      const error = errorOf('VALIDATION_FAILED', () =>
        replay(log.slice(4), { from: snapshot, upToSeq: 2 }),
      );
      expect(error.message).toBe('Cannot replay up to seq 2 from a snapshot taken at seq 3.');
    });

    it('rejects events that do not continue right after the snapshot', () => {
      const { log } = story();
      const snapshot = replay(log.slice(0, 4));
      const error = errorOf('REPLAY_ORDER', () => replay(log, { from: snapshot }));
      expect(error.message).toBe(
        `Event ${log[0]!.id} has seq 0 but seq 4 was expected (out of order).`,
      );
    });

    it('rejects, after resuming, a deletion of content the snapshot already holds as deleted', () => {
      const { m1, log } = story();
      const snapshot = replay(log);
      const again = { ...deletionOf([m1.id]), seq: 7 };
      const error = errorOf('LOG_INVARIANT_VIOLATED', () => replay([again], { from: snapshot }));
      expect(error.message).toContain(`deletes ${m1.id}, which was already deleted`);
    });

    it('rejects, after resuming, a message whose id the snapshot already holds', () => {
      const { m2, log } = story();
      const snapshot = replay(log);
      const error = errorOf('LOG_INVARIANT_VIOLATED', () =>
        replay([{ ...m2, seq: 7 }], { from: snapshot }),
      );
      expect(error.message).toContain('repeats an id already in the log');
    });
  });

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
