/**
 * The measured part of bench/rebuild.bench.ts, in a fresh process per role, as a first open
 * happens (an application starting on a log written before): no heap left by writing the log.
 * Prints one line of JSON with the wall and CPU milliseconds of each step.
 *
 * Usage: `rebuild.child.ts <role> <file> <memory id>`.
 *
 * - `raw <file>`: the state baseline, raw better-sqlite3 scanning, parsing and inserting;
 * - `fts <file>`: the search baseline, the same texts into FTS5 in one transaction;
 * - `fts-tuned <file>`: the same into an index set as memledger sets its own;
 * - `ours <file>`: openMemledger to the first state page, then the first search.
 */
import Database from 'better-sqlite3';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { measure } from './support.js';

/** The raw state baseline: scan, parse and insert one row per event, one transaction. */
function rawScan(path: string): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE raw_items (mem INTEGER, seq INTEGER, kind INTEGER, id BLOB,
    PRIMARY KEY (mem, seq)) WITHOUT ROWID`);
  // Pages of rows: a connection cannot insert while a statement of it is being iterated.
  const page = db.prepare<
    [number],
    { pos: number; seq: number; id: Buffer; type: number; payload: string }
  >('SELECT pos, seq, id, type, payload FROM event_log WHERE pos > ? ORDER BY pos LIMIT 5000');
  const insert = db.prepare('INSERT INTO raw_items VALUES (1, ?, ?, ?)');
  let parsed = 0;
  db.transaction(() => {
    for (let rows = page.all(0); rows.length > 0; rows = page.all(rows.at(-1)!.pos))
      for (const row of rows) {
        parsed += Object.keys(JSON.parse(row.payload) as object).length > 0 ? 1 : 0;
        insert.run(row.seq, row.type, row.id);
      }
  })();
  db.close();
  return parsed;
}

/**
 * The raw search baseline: the same texts into FTS5, one transaction (wall and CPU ms); with
 * `tuned`, the index set as memledger sets its own (automerge 8, secure-delete).
 */
function rawFts(path: string, tuned = false): { wall: number; cpu: number } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const texts: string[] = [];
  for (const row of db
    .prepare<[], { type: number; payload: string }>('SELECT type, payload FROM event_log')
    .iterate()) {
    const fields = JSON.parse(row.payload) as Record<string, string>;
    if (row.type === 1) texts.push(`${fields.speaker}: ${fields.content}`);
    if (row.type === 2) texts.push(`${fields.name}\n${fields.text}`);
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  db.exec(
    "CREATE VIRTUAL TABLE raw_fts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')",
  );
  if (tuned)
    db.exec(`INSERT INTO raw_fts (raw_fts, rank) VALUES ('automerge', 8);
      INSERT INTO raw_fts (raw_fts, rank) VALUES ('secure-delete', 1);`);
  const insert = db.prepare('INSERT INTO raw_fts (text) VALUES (?)');
  db.transaction(() => {
    for (const text of texts) insert.run(text);
  })();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  db.close();
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** The first state page, then the first search, of a log opened through openMemledger. */
async function ours(
  path: string,
  memoryId: string,
): Promise<Record<string, { wall: number; cpu: number }>> {
  const memledger = openMemledger({ store: openSqliteStore({ path }) });
  try {
    const memory = await memledger.memory(memoryId);
    const statePage = await measure(() => memory.statePage({ limit: 20 }));
    const search = await measure(() => memory.search('deploy key'));
    return { statePage, search };
  } finally {
    await memledger.close();
  }
}

const [role, file, memoryId] = process.argv.slice(2);
if (role !== undefined && file !== undefined && memoryId !== undefined) {
  const figures =
    role === 'raw'
      ? { raw: await measure(() => rawScan(file)) }
      : role === 'fts' || role === 'fts-tuned'
        ? { [role]: rawFts(file, role === 'fts-tuned') }
        : await ours(file, memoryId);
  console.log(JSON.stringify(figures));
}
