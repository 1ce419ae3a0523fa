/** The read-model layout: opening a current file writes nothing; another version is rebuilt. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger } from '../../src/memory/index.js';
import { READ_MODEL_VERSION } from '../../src/read-models/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

describe('read-model layout in the SQLite file', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-rm-schema-'));
    path = join(dir, 'm.db');
    const memledger = openMemledger({ store: openSqliteStore({ path }) });
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'u', content: 'tea in Bern' });
    await memory.recall({ query: 'tea' });
    await memledger.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a file of the current version without writing, even while another process holds the write lock', async () => {
    const writer = new Database(path);
    writer.exec('BEGIN IMMEDIATE');
    try {
      const memledger = openMemledger({ store: openSqliteStore({ path, busyTimeoutMs: 50 }) });
      const memory = await memledger.memory();
      expect(memory.readModelSeq).toBe(1);
      expect((await memory.statePage()).visibleMessages).toHaveLength(1);
      await memledger.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('names no view or index after a table of an earlier layout, so an older release that drops only tables can build its own', () => {
    // The tables of layouts 1-4 (memledger 0.1.0 and 0.2.0 drop tables, not views, on a version change).
    const earlierTables = [
      'rm_meta',
      'rm_memories',
      'rm_items',
      'rm_totals',
      'rm_recall_uses',
      'rm_payloads',
    ];
    const db = new Database(path, { readonly: true });
    try {
      const clashes = db
        .prepare<[], { name: string; type: string }>(
          `SELECT name, type FROM sqlite_schema WHERE type != 'table' AND name IN (${earlierTables.map((t) => `'${t}'`).join(', ')})`,
        )
        .all();
      expect(clashes).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('drops read models of a layout no code reads any longer and rebuilds them from the log', async () => {
    const db = new Database(path);
    // A layout two versions back: no code keeps it as `previous`.
    const old = Number(READ_MODEL_VERSION) - 2;
    db.prepare(
      "UPDATE projection_versions SET version = ? WHERE name IN ('read-models', 'search')",
    ).run(old);
    db.close();
    const said: string[] = [];
    const memledger = openMemledger({
      store: openSqliteStore({ path }),
      onNotice: (text) => said.push(text),
    });
    const memory = await memledger.memory();
    expect(memory.readModelSeq).toBeNull();
    const stats = await memory.recallStats();
    expect(Object.values(stats)).toEqual([
      expect.objectContaining({ count: 1, lastRecalledSeq: 1 }),
    ]);
    expect(memory.readModelSeq).toBe(1);
    expect((await memory.search('tea')).map((hit) => hit.item.kind)).toEqual(['message']);
    await memledger.close();
    expect(said).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`no code reads its layout ${old} any longer`),
      ]),
    );
    const check = new Database(path, { readonly: true });
    expect(
      check
        .prepare("SELECT version FROM projection_versions WHERE name = 'read-models'")
        .pluck()
        .get(),
    ).toBe(Number(READ_MODEL_VERSION));
    check.close();
  });
});
