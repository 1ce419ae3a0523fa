import fc from 'fast-check';
import {
  createSearchIndex,
  isContent,
  replay,
  type MemoryState,
  type SearchIndex,
  type Sequenced,
} from '../../src/core/index.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';

const RUNS = { numRuns: 200 };
/** Random valid, sequenced logs. */
const logs = opsArbitrary().map((ops) => sequenced(buildLog(ops)));
/** A random valid log with a position in it (-1 = before the first event). */
const logAndSeq = logs.chain((log) =>
  fc.tuple(fc.constant(log), fc.integer({ min: -1, max: Math.max(log.length - 1, -1) })),
);
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'deploy', 'key', 'secret', 'runbook'];

const visibleIds = (state: MemoryState) =>
  new Set([...state.visibleMessages, ...state.visibleDocuments].map((item) => item.id));

/** Feeds a search index with a log the way a projection does. */
function indexOf(log: readonly Sequenced[]): SearchIndex {
  const index = createSearchIndex();
  for (const event of log) {
    if (isContent(event)) index.add(event);
    else if (event.kind === 'deletion')
      event.targets.forEach((id) => index.markDeleted(id, event.seq));
  }
  return index;
}

/** The searchable words of a content item (what it says, not who said it or its name). */
const wordsOf = (item: MemoryState['messages'][number] | MemoryState['documents'][number]) =>
  new Set(((item.kind === 'message' ? item.content : item.text) ?? '').split(' '));

describe('replay properties (random valid logs)', () => {
  it('replay(log, { upToSeq: n }) equals the replay of the first n + 1 events, for every n', () => {
    fc.assert(
      fc.property(logs, (log) => {
        for (let n = -1; n < log.length; n++) {
          expect(replay(log, { upToSeq: n })).toEqual(replay(log.slice(0, n + 1)));
        }
      }),
      RUNS,
    );
  });

  it('is deterministic: two replays of equal logs give deep-equal states', () => {
    fc.assert(
      fc.property(logAndSeq, ([log, n]) => {
        expect(replay(structuredClone(log), { upToSeq: n })).toEqual(replay(log, { upToSeq: n }));
      }),
      RUNS,
    );
  });

  it('never shows a deleted id in a visible list, and shows every written, undeleted item', () => {
    fc.assert(
      fc.property(logs, (log) => {
        for (let n = -1; n < log.length; n++) {
          const state = replay(log, { upToSeq: n });
          const visible = visibleIds(state);
          for (const id of Object.keys(state.deleted)) expect(visible.has(id)).toBe(false);
          const written = [...state.messages, ...state.documents].map((item) => item.id);
          expect(visible).toEqual(new Set(written.filter((id) => !(id in state.deleted))));
        }
      }),
      RUNS,
    );
  });

  it('resuming from a snapshot at any k equals the full fold', () => {
    fc.assert(
      fc.property(logAndSeq, ([log, k]) => {
        const snapshot = replay(log.slice(0, k + 1));
        expect(replay(log.slice(k + 1), { from: snapshot })).toEqual(replay(log));
      }),
      RUNS,
    );
  });

  it('counts, for each item, the recalls that named it up to n', () => {
    fc.assert(
      fc.property(logAndSeq, ([log, n]) => {
        const counts = new Map<string, number>();
        for (const event of log.slice(0, n + 1)) {
          if (event.kind !== 'recall') continue;
          for (const id of new Set(event.recalled)) counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        const stats = replay(log, { upToSeq: n }).recallStats;
        expect(Object.fromEntries(Object.entries(stats).map(([id, s]) => [id, s.count]))).toEqual(
          Object.fromEntries(counts),
        );
      }),
      RUNS,
    );
  });

  it('search as of n returns only items written at or before n and never one deleted at or before n', () => {
    fc.assert(
      fc.property(logAndSeq, fc.constantFrom(...WORDS), ([log, asOf], word) => {
        // given an index fed with the whole log
        const index = indexOf(log);
        // when searching as of n
        const hits = index.search(word, { asOfSeq: asOf, limit: 1000 });
        // then every hit was written by n and not deleted by n
        const deletedBy = new Map<string, number>();
        for (const event of log) {
          if (event.kind === 'deletion')
            event.targets.forEach((id) => deletedBy.set(id, event.seq));
        }
        for (const hit of hits) {
          expect(hit.seq).toBeLessThanOrEqual(asOf);
          const deletedAt = deletedBy.get(hit.id);
          if (deletedAt !== undefined) expect(deletedAt).toBeGreaterThan(asOf);
        }
        // and the hits are exactly the visible items of that state containing the word
        const state = replay(log, { upToSeq: asOf });
        const expected = [...state.visibleMessages, ...state.visibleDocuments]
          .filter((item) => wordsOf(item).has(word))
          .map((item) => item.id);
        expect(new Set(hits.map((hit) => hit.id))).toEqual(new Set(expected));
      }),
      RUNS,
    );
  });
});
