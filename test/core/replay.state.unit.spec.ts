import { replay, type MemoryEvent } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import { ids, story } from './replay.fixtures.js';

describe('replay', () => {
  describe('MemoryState', () => {
    it('gives the empty memory with lastSeq null for an empty log', () => {
      expect(replay([])).toEqual({
        messages: [],
        documents: [],
        visibleMessages: [],
        visibleDocuments: [],
        deleted: {},
        erased: {},
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
});
