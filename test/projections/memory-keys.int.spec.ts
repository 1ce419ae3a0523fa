/**
 * The keys a SQLite file gives memories (projections, read models, vectors) are remembered by the
 * process, and a key whose row a rollback undid is forgotten with it: otherwise the next memory
 * to get a key could be given the same number, and two memories would share their rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger } from '../../src/memory/index.js';
import { MemoryKeys } from '../../src/projections/projection-tables.js';
import type { Projection, ProjectionHandler } from '../../src/store/projection.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-memory-keys-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface KeyedHandler extends ProjectionHandler {
  /** The seqs of `memoryId`'s rows, read by its key. */
  seqs(memoryId: string): number[];
}

/** A projection that takes the memory's key, writes a row per event, then throws while `broken`. */
function keyedProjection(broken: (memoryId: string) => boolean): Projection {
  return {
    name: 'keyed',
    version: 1,
    tables: ['keyed_rows'],
    open({ db, memoryKey, existingKey }): KeyedHandler {
      db.exec(`CREATE TABLE IF NOT EXISTS keyed_rows (mem INTEGER, seq INTEGER,
        PRIMARY KEY (mem, seq)) STRICT`);
      const insert = db.prepare<[number, number]>('INSERT INTO keyed_rows VALUES (?, ?)');
      const seqs = db
        .prepare<[number], number>('SELECT seq FROM keyed_rows WHERE mem = ? ORDER BY seq')
        .pluck();
      const handler: KeyedHandler = {
        checkpoint: (memoryId) => handler.seqs(memoryId).at(-1) ?? -1,
        apply(memoryId, events) {
          const mem = memoryKey(memoryId);
          for (const { event } of events) insert.run(mem, event.seq);
          if (broken(memoryId)) throw new Error('a projection that fails after it wrote');
        },
        reset() {},
        seqs(memoryId) {
          const mem = existingKey(memoryId);
          return mem === undefined ? [] : seqs.all(mem);
        },
      };
      return handler;
    },
  };
}

describe('memory keys', () => {
  it('gives no two memories one key after a key was rolled back with the append that made it', async () => {
    let brokenFor = 'a';
    const memledger = openMemledger({ store: openSqliteStore({ path: join(dir, 'keys.db') }) });
    try {
      memledger.projections.register(keyedProjection((memoryId) => memoryId === brokenFor));
      const a = await memledger.memory('a');
      const b = await memledger.memory('b');
      await a.recordMessage({ speaker: 'user', content: 'for a: its key is rolled back' });
      await b.recordMessage({ speaker: 'user', content: 'for b' });
      await b.recordMessage({ speaker: 'user', content: 'for b again' });
      brokenFor = '';
      await memledger.projections.advance('a');

      const handler = memledger.projections.handler<KeyedHandler>('keyed')!;
      expect(handler.seqs('a')).toEqual([0]);
      expect(handler.seqs('b')).toEqual([0, 1]);
    } finally {
      await memledger.close();
    }
  });

  it('keeps a key its transaction committed', async () => {
    const store = openSqliteStore({ path: join(dir, 'committed.db') });
    try {
      const db = store.embedded!.database;
      const keys = new MemoryKeys(db);
      const key = db.transaction(() => keys.keyOf('m')).immediate();
      // Another transaction that rolls back does not take it.
      expect(() =>
        db
          .transaction(() => {
            keys.keyOf('n');
            throw new Error('rolled back');
          })
          .immediate(),
      ).toThrow('rolled back');
      expect(keys.existing('m')).toBe(key);
      expect(keys.existing('n')).toBeUndefined();
      expect(db.transaction(() => keys.keyOf('n')).immediate()).not.toBe(key);
    } finally {
      await store.close();
    }
  });
});
