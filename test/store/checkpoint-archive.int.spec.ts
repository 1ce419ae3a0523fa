/**
 * The signed-checkpoint archive on each store: insert-only, a series only grows, an add after a
 * stale latest writes nothing; SQLite refuses updates and deletes by trigger; EventStoreDB keeps
 * a companion stream that listing memories never shows, and two stores racing to extend one
 * checkpoint keep exactly one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CheckpointArchive } from '../../src/store/checkpoint-archive.port.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { inMemoryCheckpointArchive } from '../../src/store/in-memory/in-memory.checkpoint-archive.js';
import { sqliteCheckpointArchive } from '../../src/store/sqlite/sqlite.checkpoint-archive.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { message } from '../support/events.js';

let dir: string;
let server: EsdbTestServer;
const opened: MemoryStore[] = [];
let run = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-archive-'));
  server = await startEsdbTestServer();
});
afterAll(async () => {
  for (const store of opened) await store.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const esdbStore = (prefix: string) => {
  const store = openEventStoreDbStore(
    { connectionString: server.connectionString },
    { streamPrefix: prefix },
  );
  opened.push(store);
  return store;
};

const kinds: { name: string; open: () => CheckpointArchive }[] = [
  { name: 'in-memory', open: () => inMemoryCheckpointArchive() },
  {
    name: 'SQLite',
    open: () => sqliteCheckpointArchive(new Database(join(dir, `a-${++run}.db`))),
  },
  { name: 'EventStoreDB', open: () => esdbStore(`archive-${++run}-`).checkpoints! },
];

const series = { memoryId: 'm-1', origin: 'log.example/m-1' };
const kept = (size: number) => ({
  size,
  root: Buffer.alloc(32, size),
  note: `log.example/m-1\n${size}\nroot\n\n— log.example sig${size}\n`,
});

describe.each(kinds)('checkpoint archive on $name', ({ open }) => {
  it('keeps a growing series, refuses a stale or smaller add, and finds each size', async () => {
    const archive = open();
    expect(await archive.latest(series)).toBeUndefined();
    expect(await archive.add(series, kept(3), undefined)).toBe(true);
    const three = await archive.latest(series);
    expect(three).toMatchObject({ size: 3, note: kept(3).note });
    expect(Buffer.from(three!.root)).toEqual(kept(3).root);
    expect(await archive.add(series, kept(5), undefined)).toBe(false);
    expect(await archive.add(series, kept(3), three)).toBe(false);
    expect(await archive.add(series, kept(2), three)).toBe(false);
    for (const size of [7, 8, 20, 33]) {
      expect(await archive.add(series, kept(size), await archive.latest(series))).toBe(true);
    }
    expect(await archive.add(series, kept(40), three)).toBe(false);
    for (const size of [3, 7, 8, 20, 33]) {
      expect((await archive.at(series, size))?.note).toBe(kept(size).note);
    }
    for (const size of [0, 4, 21, 34]) expect(await archive.at(series, size)).toBeUndefined();
    expect((await archive.latest(series))?.size).toBe(33);
    expect(await archive.latest({ memoryId: 'm-1', origin: 'other.example/m-1' })).toBeUndefined();
  });
});

describe('checkpoint archive specifics', () => {
  it('refuses by trigger to update or delete a signed checkpoint in a SQLite file', async () => {
    const db = new Database(join(dir, 'triggers.db'));
    const archive = sqliteCheckpointArchive(db);
    await archive.add(series, kept(1), undefined);
    expect(() => db.prepare("UPDATE tlog_checkpoints SET note = 'forged'").run()).toThrow(
      /insert-only/,
    );
    expect(() => db.prepare('DELETE FROM tlog_checkpoints').run()).toThrow(/insert-only/);
    expect((await archive.latest(series))?.note).toBe(kept(1).note);
    db.close();
  });

  it('keeps EventStoreDB checkpoints in a companion stream that listing memories never shows', async () => {
    const store = esdbStore(`listed-${++run}-`);
    await store.log('m-1').append([message('one')]);
    await store.checkpoints!.add(series, kept(1), undefined);
    expect(await store.memoryIds()).toEqual(['m-1']);
  });

  it('lets exactly one of two EventStoreDB stores extend the same checkpoint', async () => {
    const prefix = `race-${++run}-`;
    const [a, b] = [esdbStore(prefix).checkpoints!, esdbStore(prefix).checkpoints!];
    await a.add(series, kept(1), undefined);
    const latest = await b.latest(series);
    const outcomes = await Promise.all([
      a.add(series, kept(2), latest),
      b.add(series, kept(3), latest),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await a.latest(series))?.size).toBe(outcomes[0] ? 2 : 3);
  });
});
