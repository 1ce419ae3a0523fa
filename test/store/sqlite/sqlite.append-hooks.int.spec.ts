/**
 * The SQLite store's append hooks (how inline projections run): each runs inside the append's
 * transaction; one that throws has its own writes rolled back and no one else's, the append is
 * written all the same, and it is given the next append as usual.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import { doc, message } from '../../support/events.js';

describe('SQLite append hooks', () => {
  let dir: string;
  let store: MemoryStore;
  let db: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-hooks-'));
    store = openSqliteStore({ path: join(dir, 'memledger.db') });
    db = store.embedded!.database;
    db.exec('CREATE TABLE hook_a (seq INTEGER); CREATE TABLE hook_b (seq INTEGER)');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A hook that writes a row per event into `table`, then throws while `broken()` says so. */
  const writingHook = (table: string, broken: () => boolean) => {
    const insert = db.prepare<[number]>(`INSERT INTO ${table} (seq) VALUES (?)`);
    return (_memoryId: string, events: readonly { event: { seq: number } }[]) => {
      for (const { event } of events) insert.run(event.seq);
      if (broken()) throw new Error('a broken projection, after it wrote');
    };
  };
  const seqsIn = (table: string) =>
    db.prepare<[], number>(`SELECT seq FROM ${table} ORDER BY seq`).pluck().all();

  it('rolls back only the writes of a hook that throws, and writes the append all the same', async () => {
    let broken = true;
    store.embedded!.onAppend(writingHook('hook_a', () => broken));
    store.embedded!.onAppend(writingHook('hook_b', () => false));
    const log = store.log('m');

    const written = await log.append([message('kept'), doc('also kept')]);

    expect(written.map((e) => e.seq)).toEqual([0, 1]);
    expect(await log.lastSeq()).toBe(1);
    expect(seqsIn('hook_a')).toEqual([]);
    expect(seqsIn('hook_b')).toEqual([0, 1]);

    broken = false;
    await log.append([message('next')]);
    expect(seqsIn('hook_a')).toEqual([2]);
    expect(seqsIn('hook_b')).toEqual([0, 1, 2]);
  });

  it('gives every hook an append whose own ids had to be looked up, even when one throws', async () => {
    store.embedded!.onAppend(writingHook('hook_a', () => true));
    store.embedded!.onAppend(writingHook('hook_b', () => false));
    const log = store.log('m');
    const first = message('first');
    await log.append([first]);

    // The same event again beside a new one: the first attempt meets the stored id, the second
    // looks every id up, keeps the stored event and writes the new one.
    const again = await log.append([first, message('second')]);

    expect(again.map((e) => e.seq)).toEqual([0, 1]);
    expect(seqsIn('hook_a')).toEqual([]);
    expect(seqsIn('hook_b')).toEqual([0, 1]);
  });
});
