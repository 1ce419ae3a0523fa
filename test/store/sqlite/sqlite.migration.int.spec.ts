/** Opening a file written by memledger 0.1.0 (layout version 1): migrated once, in place. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { MemoryState } from '../../../src/core/index.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import {
  MIGRATION_FROM_1_KEY,
  type MigrationRecord,
} from '../../../src/store/sqlite/sqlite.migrate.js';
import { readAll, rejectionOf } from '../../support/collect.js';
import { deletionOf, message } from '../../support/events.js';
import {
  FIXTURE_STATES,
  copyFixture,
  realisticLog,
  stateOf,
  version1Row,
  writeVersion1File,
} from './sqlite-files.js';
import { eventAsReadToday, stateAsReadToday } from '../../support/as-read-today.js';

const expectedStates = JSON.parse(readFileSync(FIXTURE_STATES, 'utf8')) as Record<
  string,
  MemoryState
>;

/** Runs `work` on a plain connection to `path`, outside the store. */
function raw<T>(path: string, work: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return work(db);
  } finally {
    db.close();
  }
}
const metaOf = (path: string) =>
  raw(path, (db) =>
    Object.fromEntries(
      db
        .prepare<[], { key: string; value: string }>('SELECT key, value FROM memledger_meta')
        .all()
        .map((r) => [r.key, r.value]),
    ),
  );

describe('SQLite file written by memledger 0.1.0', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-migrate-'));
    path = copyFixture(join(dir, 'memledger.db'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is migrated on open and replays every memory to the state 0.1.0 recorded', async () => {
    expect(metaOf(path).schema_version).toBe('1');
    const store = openSqliteStore({ path });
    try {
      expect(await store.memoryIds()).toEqual(Object.keys(expectedStates).sort());
      for (const [memoryId, state] of Object.entries(expectedStates))
        expect(await stateOf(store, memoryId)).toEqual(stateAsReadToday({ ...state, erased: {} }));
    } finally {
      await store.close();
    }
    const meta = metaOf(path);
    expect(meta.schema_version).toBe('3');
    expect(JSON.parse(meta[MIGRATION_FROM_1_KEY]!)).toEqual({
      from: '1',
      to: '3',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) as unknown,
      events: 49,
      deletions: 5,
      deletionsDropped: 0,
    } satisfies Record<keyof MigrationRecord, unknown>);
    raw(path, (db) => {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT DISTINCT version FROM event_log').pluck().all()).toEqual([1]);
    });
  });

  it('continues each memory at the next seq and keeps the guard and idempotency of migrated events', async () => {
    const store = openSqliteStore({ path });
    try {
      const log = store.log();
      const last = expectedStates.default!.lastSeq!;
      const deletedId = Object.keys(expectedStates.default!.deleted)[0]!;
      const visible = expectedStates.default!.visibleMessages[0]!;
      // Appending a migrated event again returns it as stored and writes nothing (invariant 9).
      expect(await log.append([{ ...visible, seq: null }])).toEqual([eventAsReadToday(visible)]);
      const [added] = await log.append([message('after the migration ✓')]);
      expect(added!.seq).toBe(last + 1);
      // The guard index came across: a second deletion names the first one, by id and seq.
      const by = expectedStates.default!.deleted[deletedId]!;
      const again = await rejectionOf(log.append([deletionOf([deletedId])]));
      expect(again.code).toBe('ALREADY_DELETED');
      expect(again.message).toContain(`already deleted by ${by.id} at seq ${by.seq}`);
      const [deletion] = await log.append([deletionOf([visible.id])]);
      expect(deletion!.seq).toBe(last + 2);
      expect(await store.log('tiny_3').lastSeq()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('is migrated only once: later opens leave the file and its migration record as they are', async () => {
    await openSqliteStore({ path }).close();
    const record = metaOf(path)[MIGRATION_FROM_1_KEY];
    const store = openSqliteStore({ path });
    try {
      expect(await stateOf(store, 'ops.team-1')).toEqual(
        stateAsReadToday({ ...expectedStates['ops.team-1']!, erased: {} }),
      );
    } finally {
      await store.close();
    }
    const meta = metaOf(path);
    expect(meta[MIGRATION_FROM_1_KEY]).toBe(record);
    expect(Object.keys(meta).sort()).toEqual([MIGRATION_FROM_1_KEY, 'schema_version']);
  });

  it('leaves tables it does not own, such as read models, in place', async () => {
    raw(path, (db) =>
      db.exec("CREATE TABLE rm_other (x TEXT); INSERT INTO rm_other VALUES ('kept')"),
    );
    await openSqliteStore({ path }).close();
    expect(raw(path, (db) => db.prepare('SELECT x FROM rm_other').pluck().all())).toEqual(['kept']);
  });

  it('rolls the whole migration back when a step fails, leaving the 0.1.0 file as it was', async () => {
    // A foreign table in the way of the new layout makes the copy fail half-way.
    raw(path, (db) => db.exec('CREATE TABLE event_log (unrelated TEXT)'));
    expect(() => openSqliteStore({ path })).toThrow(/SQLite store .* failed in open/);
    expect(metaOf(path)).toEqual({ schema_version: '1' });
    raw(path, (db) => {
      expect(db.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(49);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'memories'").get()).toBe(
        undefined,
      );
    });
  });
});

describe('SQLite rows a 0.1.0 file holds beyond what its store wrote', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'memledger-migrate-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are carried over as they were: each reads back as the same event or the same error', async () => {
    const path = join(dir, 'tampered.db');
    const [first, second, third] = realisticLog(3);
    const odd = (
      seq: number,
      type: string,
      payload: string,
      id = `0193aaaa-0000-7000-8000-00000000000${seq}`,
    ) => ({ memoryId: 'odd', seq, id, type, payload });
    const renamed = version1Row('odd', { ...second!, seq: 1 });
    writeVersion1File(path, { default: [first!] }, [
      odd(0, 'Mystery', '{}', 'x'),
      // The id column and the payload's id disagree: 0.1.0 decoded the payload's.
      { ...renamed, id: '0193aaaa-0000-7000-8000-000000000001' },
      odd(2, 'Message', '{not json'),
      odd(3, 'Document', version1Row('odd', { ...third!, seq: 3 }).payload),
    ]);
    const store = openSqliteStore({ path });
    try {
      const at = (seq: number) => readAll(store.log('odd'), { fromSeq: seq, toSeq: seq });
      expect((await rejectionOf(at(0))).message).toContain('unknown type "Mystery"');
      expect(await at(1)).toEqual([{ ...second!, seq: 1 }]);
      expect((await rejectionOf(at(2))).message).toContain('is not valid JSON');
      expect((await rejectionOf(at(3))).message).toContain('has type Document but kind message');
      expect(await readAll(store.log())).toEqual([first]);
    } finally {
      await store.close();
    }
  });
});
