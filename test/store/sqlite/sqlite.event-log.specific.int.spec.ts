/** What only the SQLite store promises beyond the contract: file-level guards and several processes. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { readAll, rejectionOf, take } from '../../support/collect.js';
import { deletionOf, doc, message, recallOf } from '../../support/events.js';

const run = promisify(execFile);
const child = join(import.meta.dirname, '..', '..', 'support', 'sqlite-append-child.ts');
const appendFromAnotherProcess = (path: string, count: number, label: string) =>
  run(process.execPath, ['--import', 'tsx', child, path, String(count), label]);

describe('SQLite store on a real file', () => {
  let dir: string;
  let path: string;
  let store: MemoryStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-sqlite-'));
    path = join(dir, 'nested', 'memledger.db');
    store = openSqliteStore({ path, pollMs: 20 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses UPDATE and DELETE of events at the database level, even from a hand-written statement', async () => {
    const [target] = await store.log().append([message('history')]);
    await store.log().append([deletionOf([target!.id])]);
    const raw = new Database(path);
    try {
      for (const table of ['events', 'event_log', 'event_deletions', 'memories', 'event_types']) {
        const column = table === 'events' ? 'seq' : 'rowid';
        expect(() => raw.prepare(`UPDATE ${table} SET ${column} = 99`).run()).toThrow(
          /append-only/,
        );
        expect(() => raw.prepare(`DELETE FROM ${table}`).run()).toThrow(/append-only/);
      }
      expect(raw.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(2);
    } finally {
      raw.close();
    }
  });

  it('writes the event schema version with every event, and the type as its code', async () => {
    await store.log().append([message(), doc()]);
    await store.log('other').append([message()]);
    const raw = new Database(path, { readonly: true });
    try {
      expect(
        raw.prepare('SELECT memory, seq, type, version FROM event_log ORDER BY pos').all(),
      ).toEqual([
        { memory: 1, seq: 0, type: 1, version: 3 },
        { memory: 1, seq: 1, type: 2, version: 3 },
        { memory: 2, seq: 0, type: 1, version: 3 },
      ]);
    } finally {
      raw.close();
    }
  });

  it('records its schema version and WAL mode in the file', async () => {
    await store.log().append([message()]);
    const raw = new Database(path, { readonly: true });
    try {
      expect(
        raw.prepare("SELECT value FROM memledger_meta WHERE key = 'schema_version'").pluck().get(),
      ).toBe('3');
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('refuses to open a file written by a newer schema version', async () => {
    await store.close();
    const raw = new Database(path);
    raw
      .prepare("INSERT OR REPLACE INTO memledger_meta (key, value) VALUES ('schema_version', '99')")
      .run();
    raw.close();
    expect(() => openSqliteStore({ path })).toThrow(/schema version 99/);
    store = openSqliteStore({ path: join(dir, 'fresh.db') });
  });

  it('rejects a stored row of unknown type when reading, instead of skipping it', async () => {
    await store.log().append([message('fine')]);
    const raw = new Database(path);
    raw
      .prepare(
        "INSERT INTO events (memory_id, seq, id, type, payload) VALUES ('default', 1, 'x', 'Mystery', '{}')",
      )
      .run();
    raw.close();
    const error = await rejectionOf(readAll(store.log()));
    expect(error.code).toBe('EVENT_DECODE_FAILED');
    expect(error.message).toContain('unknown type "Mystery"');
  });

  it('delivers events appended by another process to a live subscriber', async () => {
    const controller = new AbortController();
    const received = take(store.log().subscribe({ signal: controller.signal }), 5, 20_000);
    await appendFromAnotherProcess(path, 5, 'child');
    const events = await received;
    controller.abort();
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(events.map((e) => (e.kind === 'message' ? e.speaker : ''))).toEqual(
      Array(5).fill('child'),
    );
  });

  it('keeps seq gapless when two processes and this one append to one file at the same time', async () => {
    const local = (async () => {
      for (let i = 0; i < 20; i++) await store.log().append([message(`local ${i}`)]);
    })();
    await Promise.all([
      appendFromAnotherProcess(path, 40, 'p1'),
      appendFromAnotherProcess(path, 40, 'p2'),
      local,
    ]);
    const events = await readAll(store.log());
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(new Set(events.map((e) => e.id)).size).toBe(100);
  });

  // The guard reads every id an append names in one statement (sqlite.entries.ts).
  it('finds every stored id an append of several events names: a retried append writes nothing, a changed event in it is ID_CONFLICT, a deleted target is ALREADY_DELETED', async () => {
    const log = store.log();
    const [a, b] = await log.append([message('a'), doc()]);
    const [c, d] = [message('c'), doc()];
    const batch = [c, recallOf([a!.id, b!.id]), deletionOf([a!.id]), d];
    const first = await log.append(batch);
    expect(await log.append(batch)).toEqual(first);
    expect(await log.lastSeq()).toBe(5);
    const changed = await rejectionOf(log.append([c, { ...d, name: 'other.md' }]));
    expect(changed.code).toBe('ID_CONFLICT');
    const twice = await rejectionOf(log.append([message('d'), deletionOf([a!.id])]));
    expect(twice.code).toBe('ALREADY_DELETED');
    expect(await log.lastSeq()).toBe(5);
  });

  it('fails with STORE_CLOSED after close', async () => {
    const log = store.log();
    await store.close();
    expect((await rejectionOf(log.append([message()]))).code).toBe('STORE_CLOSED');
    store = openSqliteStore({ path });
  });
});
