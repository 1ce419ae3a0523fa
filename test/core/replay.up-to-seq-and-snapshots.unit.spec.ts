import { replay } from '../../src/core/index.js';
import { deletionOf } from '../support/events.js';
import { errorOf, ids, story } from './replay.fixtures.js';

describe('replay', () => {
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
});
