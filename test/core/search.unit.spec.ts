import {
  createSearchIndex,
  isContent,
  type SearchIndex,
  type Sequenced,
} from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message } from '../support/events.js';

/** Feeds an index with a log the way a projection does. */
function indexOf(log: readonly Sequenced[]): SearchIndex {
  const index = createSearchIndex();
  for (const event of log) {
    if (isContent(event)) index.add(event);
    else if (event.kind === 'deletion')
      event.targets.forEach((id) => index.markDeleted(id, event.seq));
  }
  return index;
}

const hitIds = (index: SearchIndex, query: string, options = {}) =>
  index.search(query, options).map((hit) => hit.id);

describe('search index', () => {
  describe('ranking (BM25+)', () => {
    it('ranks an item matching every query term above one matching only some', () => {
      const both = message('rotate the deploy key today');
      const one = message('the deploy went fine');
      const index = indexOf(sequenced([one, both]));
      expect(hitIds(index, 'deploy key')).toEqual([both.id, one.id]);
    });

    it('ranks an item that repeats the term above one that says it once, at equal length', () => {
      const twice = message('secret secret note here');
      const once = message('secret plain note here');
      const index = indexOf(sequenced([once, twice]));
      expect(hitIds(index, 'secret')).toEqual([twice.id, once.id]);
    });

    it('ranks a short item above a long one with the term once each', () => {
      const short = message('gamma');
      const long = message('gamma ' + Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' '));
      const index = indexOf(sequenced([long, short]));
      expect(hitIds(index, 'gamma')).toEqual([short.id, long.id]);
    });

    it('weighs a rare term above a common one', () => {
      const common = Array.from({ length: 5 }, (_, i) => message(`alpha common ${i}`));
      const rare = message('zebra sighting');
      const index = indexOf(sequenced([...common, rare]));
      expect(hitIds(index, 'alpha zebra')[0]).toBe(rare.id);
    });

    it('returns hits best first with their id, kind, seq and a positive score', () => {
      const m = message('runbook for the deploy');
      const d = doc('deploy deploy runbook');
      const hits = indexOf(sequenced([m, d])).search('deploy runbook');
      expect(hits.map(({ id, kind, seq }) => ({ id, kind, seq }))).toEqual([
        { id: d.id, kind: 'document', seq: 1 },
        { id: m.id, kind: 'message', seq: 0 },
      ]);
      expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
      expect(hits[1]!.score).toBeGreaterThan(0);
    });

    it('matches regardless of letter case', () => {
      const m = message('Deploy KEY');
      expect(hitIds(indexOf(sequenced([m])), 'deploy key')).toEqual([m.id]);
    });

    it('returns nothing for a query no item contains', () => {
      expect(indexOf(sequenced([message('alpha'), doc('beta')])).search('omega')).toEqual([]);
    });

    it('finds a document by its name and a message by its speaker', () => {
      const d = doc('body text', { name: 'quarterly-report.md' });
      const m = message('hello', { speaker: 'margaret' });
      const index = indexOf(sequenced([d, m]));
      expect(hitIds(index, 'quarterly')).toEqual([d.id]);
      expect(hitIds(index, 'margaret')).toEqual([m.id]);
    });
  });

  describe('limit', () => {
    const items = Array.from({ length: 15 }, (_, i) => message(`delta ${'delta '.repeat(i)}item`));
    const index = indexOf(sequenced(items));

    it('returns at most 10 hits by default', () => {
      expect(index.search('delta')).toHaveLength(10);
    });

    it('returns the best `limit` hits, the head of the full ranking', () => {
      const all = hitIds(index, 'delta', { limit: 100 });
      expect(all).toHaveLength(15);
      expect(hitIds(index, 'delta', { limit: 3 })).toEqual(all.slice(0, 3));
    });

    it('applies the limit after visibility, so deleted items do not use up slots', () => {
      const log = sequenced([...items, deletionOf(items.slice(0, 10).map((m) => m.id))]);
      expect(indexOf(log).search('delta', { limit: 5 })).toHaveLength(5);
    });
  });

  describe('as of a seq', () => {
    it('excludes items written after asOfSeq and includes the one written at it', () => {
      const [a, b, c] = [message('beta one'), message('beta two'), message('beta three')];
      const index = indexOf(sequenced([a, b, c]));
      expect(new Set(hitIds(index, 'beta', { asOfSeq: 1 }))).toEqual(new Set([a.id, b.id]));
      expect(hitIds(index, 'beta', { asOfSeq: 0 })).toEqual([a.id]);
    });

    it('finds nothing as of seq -1', () => {
      const index = indexOf(sequenced([message('beta')]));
      expect(index.search('beta', { asOfSeq: -1 })).toEqual([]);
    });
  });

  describe('deleted items (invariant 6)', () => {
    // given m deleted at seq 2, n never deleted
    const m = message('secret plan');
    const n = message('secret recipe');
    const log = sequenced([m, n, deletionOf([m.id])]);
    const index = indexOf(log);

    it('excludes a deleted item from a search now', () => {
      expect(hitIds(index, 'secret')).toEqual([n.id]);
    });

    it('excludes a deleted item as of the seq of its deletion and after', () => {
      expect(hitIds(index, 'secret', { asOfSeq: 2 })).toEqual([n.id]);
      expect(hitIds(index, 'secret', { asOfSeq: 50 })).toEqual([n.id]);
    });

    it('finds a deleted item as of a seq before its deletion', () => {
      expect(new Set(hitIds(index, 'secret', { asOfSeq: 1 }))).toEqual(new Set([m.id, n.id]));
    });

    it('keeps the first deletion seq when an id is marked deleted twice', () => {
      const again = indexOf(log);
      again.markDeleted(m.id, 9);
      expect(new Set(hitIds(again, 'secret', { asOfSeq: 5 }))).toEqual(new Set([n.id]));
    });

    it('counts deleted items in size, since the index keeps everything ever written', () => {
      expect(index.size).toBe(2);
    });
  });
});
