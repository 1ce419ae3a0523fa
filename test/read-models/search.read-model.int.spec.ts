/** The FTS5 search read model on a real SQLite file: ranking, as-of visibility, isolation, erasure. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import {
  isContent,
  replay,
  type ContentEvent,
  type MemoryEvent,
  type Sequenced,
} from '../../src/core/index.js';
import { ensureReadModelSchema } from '../../src/read-models/read-model.schema.js';
import { seqsOnReadModels } from '../../src/read-models/item-seqs.js';
import { prepareWriter, type ApplyEvents } from '../../src/read-models/read-model.writer.js';
import {
  POSTING_BUDGET,
  prepareSearchReadModel,
  type SearchReadModel,
} from '../../src/read-models/search.read-model.js';
import { deletionOf, doc, message } from '../support/events.js';

describe('search read model (SQLite FTS5)', () => {
  let dir: string;
  let path: string;
  let db: Database.Database;
  let search: SearchReadModel;
  let write: ApplyEvents;
  let nextMem = 1;
  let mem: number;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-search-'));
    path = join(dir, 'read-models.db');
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('secure_delete = ON');
    // The layout of a read-model file of its own (no log here): items found by its id index.
    ensureReadModelSchema(db, true);
    ensureReadModelSchema(db, true); // the schema is checked at every open
    search = prepareSearchReadModel(db);
    write = prepareWriter(db, search, false, seqsOnReadModels(db));
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    mem = nextMem++;
  });

  /**
   * Sequences `events` from 0 and feeds them to memory `into` through the read-model writer
   * (the item index the search joins) and the search catch-up, as the projection does.
   */
  function feed(events: readonly MemoryEvent[], into = mem): Sequenced[] {
    const log = events.map((event, seq): Sequenced => ({ ...event, seq }));
    db.transaction(() => {
      db.prepare('INSERT OR IGNORE INTO rm_memories (mem, memory_id) VALUES (?, ?)').run(
        into,
        `m${into}`,
      );
      // The search catch-up (read-model-db.ts) indexes the content the writer applied.
      for (const event of write(into, log)) if (isContent(event)) search.add(into, event);
    })();
    return log;
  }
  const ids = (q: string, options?: { asOfSeq?: number; limit?: number }, into = mem) =>
    search.search(into, q, options).map((h) => h.id);

  describe('the index’s own settings', () => {
    it('is created removing words at once on delete and merging eight segments of a level at a time', () => {
      const settings = () =>
        Object.fromEntries(
          db
            .prepare<[], { k: string; v: number }>('SELECT k, v FROM search_fts_config')
            .all()
            .map(({ k, v }) => [k, v]),
        );
      expect(settings()).toMatchObject({ 'secure-delete': 1, automerge: 8 });
    });
  });

  describe('ranking', () => {
    it('ranks the item that matches more and rarer query terms first, with positive falling scores', () => {
      const [both, keyOnly, deployOnly] = feed([
        message('The deploy key rotates on Fridays.'),
        message('A key to the cellar, a key to the attic.'),
        doc('Deploy the worker after lunch.'),
        message('Nothing about any of it.'),
      ]);
      const hits = search.search(mem, 'when does the deploy key rotate?');
      expect(hits.map((h) => h.id)).toEqual([both!.id, keyOnly!.id, deployOnly!.id]);
      expect(hits[0]).toMatchObject({ kind: 'message', seq: 0 });
      expect(hits[2]).toMatchObject({ kind: 'document', seq: 2 });
      const scores = hits.map((h) => h.score);
      expect(scores.every((s) => s > 0)).toBe(true);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });

    it('stems English words on both sides: "peanuts allergy" finds "Peanut-free" and "allergies"', () => {
      const [free, allergies] = feed([
        message('Please keep every meal Peanut-free.'),
        doc('Known allergies: shellfish.'),
        message('The weather is fine.'),
      ]);
      expect(ids('peanuts allergy')).toEqual(expect.arrayContaining([free!.id, allergies!.id]));
      expect(ids('peanuts allergy')).toHaveLength(2);
      expect(ids('meals')).toEqual([free!.id]);
    });

    it('indexes the speaker of a message and the name of a document', () => {
      const [said, named] = feed([
        message('hello there', { speaker: 'archivist' }),
        doc('plain text', { name: 'quarterly-ledger.md' }),
      ]);
      expect(ids('archivist')).toEqual([said!.id]);
      expect(ids('ledger')).toEqual([named!.id]);
    });

    it('honours the limit (10 by default) and indexes a re-added item once', () => {
      const events = Array.from({ length: 12 }, (_, i) => message(`invoice number ${i}`));
      feed(events);
      feed(events); // applied again: the writer skips what it holds
      expect(ids('invoice')).toHaveLength(10);
      expect(ids('invoice', { limit: 3 })).toHaveLength(3);
      expect(ids('invoice', { limit: 100 })).toHaveLength(12);
      expect(ids('invoice', { limit: 0 })).toEqual([]);
    });

    it('finds accented and CJK text whatever the accents or case of the query', () => {
      const [french, japanese] = feed([
        message('Un café crème à Zürich'),
        doc('東京タワー の 写真'),
      ]);
      expect(ids('CAFE')).toEqual([french!.id]);
      expect(ids('zurich café')).toEqual([french!.id]);
      expect(ids('東京タワー')).toEqual([japanese!.id]);
      expect(ids('写真 😀')).toEqual([japanese!.id]);
    });

    it('scores rare terms first within the posting budget and ranks a too-common term among its newest rows', () => {
      const rows = POSTING_BUDGET + 1;
      const log = feed([
        ...Array.from({ length: rows }, (_, i) => message(`routine status report ${i}`)),
        message('routine status report with a zeppelin'),
      ]);
      expect(ids('routine zeppelin')).toEqual([log[rows]!.id]);
      expect(ids('routine report', { limit: 5 })).toHaveLength(5);
      const newest = search.search(mem, 'routine', { limit: 100_000 });
      expect(newest).toHaveLength(POSTING_BUDGET + 1);
      expect(Math.min(...newest.map((h) => h.seq))).toBe(1);
    });
  });

  describe('as of a seq', () => {
    it('stops matching an item from its deletion on, the first deletion winning', () => {
      const one = message('alpha one');
      const two = message('alpha two');
      const [kept, dropped] = feed([
        one,
        two,
        message('beta'),
        deletionOf([two.id]),
        message('gamma'),
        deletionOf([two.id]),
      ]);
      expect(ids('alpha', { asOfSeq: 0 })).toEqual([kept!.id]);
      expect(new Set(ids('alpha', { asOfSeq: 2 }))).toEqual(new Set([kept!.id, dropped!.id]));
      expect(ids('alpha', { asOfSeq: 3 })).toEqual([kept!.id]);
      expect(ids('alpha', { asOfSeq: 4 })).toEqual([kept!.id]);
      expect(ids('alpha')).toEqual([kept!.id]);
      expect(ids('alpha', { asOfSeq: -1 })).toEqual([]);
    });

    const WORDS = ['amber', 'basalt', 'cobalt', 'delta', 'ember', 'fjord'] as const;
    type Op = { kind: 'message' | 'document'; words: string[] } | { kind: 'delete'; pick: number };
    const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        kind: fc.constantFrom('message' as const, 'document' as const),
        words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );

    function buildLog(ops: readonly Op[]): MemoryEvent[] {
      const live: string[] = [];
      const events: MemoryEvent[] = [];
      for (const op of ops) {
        if (op.kind === 'delete') {
          if (live.length === 0) continue;
          const [target] = live.splice(op.pick % live.length, 1);
          events.push(deletionOf([target!]));
        } else {
          const event =
            op.kind === 'message' ? message(op.words.join(' ')) : doc(op.words.join(' '));
          live.push(event.id);
          events.push(event);
        }
      }
      return events;
    }

    it('returns exactly the matching content that replay() shows visible at every seq', () => {
      fc.assert(
        fc.property(
          fc.array(opArbitrary, { minLength: 1, maxLength: 30 }),
          fc.subarray([...WORDS], { minLength: 1 }),
          fc.integer({ min: -1, max: 40 }),
          (ops, queryWords, n) => {
            mem = nextMem++;
            const log = feed(buildLog(ops));
            const state = replay(log, { upToSeq: n });
            const text = (item: Sequenced<ContentEvent>) =>
              (item.kind === 'message' ? item.content : item.text) ?? '';
            const expected = [...state.visibleMessages, ...state.visibleDocuments]
              .filter((item) => queryWords.some((w) => text(item).split(' ').includes(w)))
              .map((item) => item.id);
            const actual = ids(`the ${queryWords.join(' and ')}?`, { asOfSeq: n, limit: 1000 });
            expect(new Set(actual)).toEqual(new Set(expected));
            expect(actual).toHaveLength(expected.length);
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  describe('isolation', () => {
    it('never returns another memory’s items, even for the same event id', () => {
      const other = nextMem++;
      const shared = message('shared secret phrase');
      const [mine] = feed([shared, message('secret of mine')]);
      feed([shared, deletionOf([shared.id]), message('secret of theirs')], other);
      expect(ids('secret', { limit: 100 })).toHaveLength(2);
      expect(ids('secret', {}, other)).toHaveLength(1);
      expect(ids('shared')).toEqual([mine!.id]);
      expect(ids('shared', {}, other)).toEqual([]);
      expect(ids('theirs')).toEqual([]);
    });

    it('rejects a memory key outside the rowid range instead of mixing memories', () => {
      expect(() => search.search(-1, 'x')).toThrow(/memory key -1/);
      expect(() => search.search(2 ** 23, 'x')).toThrow(/memory key/);
    });

    it('keeps millions of memories apart: rowids past 2^53 are exact (memory keys up to 2^23 - 1)', () => {
      const [near] = feed([message('far away tundra')], 2 ** 23 - 1);
      const [neighbour] = feed([message('far away tundra')], 2 ** 23 - 2);
      const last = { ...message('tundra at the end of the range'), seq: 2 ** 40 - 1 };
      db.transaction(() => {
        db.prepare(
          `INSERT INTO rm_items (mem, seq, kind, id, messages, documents, deleted_messages,
             deleted_documents) VALUES (?, ?, 0, ?, 1, 0, 0, 0)`,
        ).run(2 ** 23 - 1, last.seq, last.id);
        search.add(2 ** 23 - 1, last);
      })();
      expect(ids('tundra', {}, 2 ** 23 - 1).sort()).toEqual([near!.id, last.id].sort());
      expect(ids('tundra', {}, 2 ** 23 - 2)).toEqual([neighbour!.id]);
      expect(ids('tundra', { asOfSeq: 0 }, 2 ** 23 - 1)).toEqual([near!.id]);
    });
  });

  describe('hostile queries', () => {
    const HOSTILE = [
      '"',
      '""',
      '"deploy',
      'deploy*',
      '*',
      'NEAR(deploy key)',
      'NEAR(deploy key, 0)',
      'deploy AND',
      'OR OR OR',
      'NOT deploy',
      'text:deploy',
      '{text}: deploy',
      'search_fts:deploy',
      '(deploy',
      'deploy))',
      '^deploy',
      '-deploy +key',
      "'; DROP TABLE search_items; --",
      'deploy\u0000key',
      '\uD800 lone surrogate',
      '😀🔑',
      'x'.repeat(10_000),
      'deploy '.repeat(500),
    ];

    it.each(HOSTILE.map((q) => [JSON.stringify(q).slice(0, 40), q]))(
      'answers %s without throwing or reading it as FTS5 syntax',
      (_title, q) => {
        const [target] = feed([message('deploy key rotation'), message('unrelated words')]);
        const found = ids(q);
        expect(found.every((id) => id === target!.id)).toBe(true);
        expect(db.prepare('SELECT count(*) FROM search_fts').pluck().get()).toBeGreaterThan(0);
      },
    );

    it('treats FTS5 operators as plain words and matches the rest', () => {
      const [target] = feed([message('deploy key rotation')]);
      expect(ids('NEAR(deploy key)')).toEqual([target!.id]);
      expect(ids('text:rotation*')).toEqual([target!.id]);
    });

    it('returns nothing for a query of stop words or punctuation only', () => {
      feed([message('the and of to is it')]);
      expect(ids('the and of')).toEqual([]);
      expect(ids('?!... ---')).toEqual([]);
      expect(ids('')).toEqual([]);
    });
  });

  describe('forget and clear', () => {
    it('forgets an item so that no trace of its words is left in the vocabulary or the file', () => {
      const secret = 'zanzibarquuxwort';
      feed(
        Array.from({ length: 300 }, (_, i) =>
          i === 150 ? message(`the password is ${secret}`) : message(`filler text number ${i}`),
        ),
      );
      const [target] = search.search(mem, secret);
      const inVocab = () =>
        db.prepare('SELECT count(*) FROM search_vocab WHERE term = ?').pluck().get(secret);
      expect(inVocab()).toBe(1);

      db.transaction(() => search.forget(mem, target!.seq))();
      db.pragma('wal_checkpoint(TRUNCATE)');

      expect(ids(secret)).toEqual([]);
      expect(ids('password')).toEqual([]);
      expect(inVocab()).toBe(0);
      expect(readFileSync(path).includes(secret)).toBe(false);
      expect(ids('filler', { limit: 1000 })).toHaveLength(299);
    });

    it('clears one memory, leaves the others, and takes the same items back for a rebuild', () => {
      const other = nextMem++;
      const events = [message('rebuild candidate'), message('another candidate')];
      feed(events);
      feed([message('candidate elsewhere')], other);
      search.clear(mem);
      expect(ids('candidate')).toEqual([]);
      expect(ids('candidate', {}, other)).toHaveLength(1);
      // A rebuild indexes the same items again.
      const log = events.map((event, seq) => ({ ...event, seq }));
      db.transaction(() => log.forEach((item) => search.add(mem, item)))();
      expect(ids('candidate')).toHaveLength(2);
    });
  });
});
