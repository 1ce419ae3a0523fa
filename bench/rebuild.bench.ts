/**
 * The first open of a log written without read models (issue 29): a file written by the bare
 * SQLite store — as the README's first example writes it, and as every read-model layout change
 * leaves one — opened through `openMemledger` to its first state page, and then its first search,
 * against baselines on copies of the same file in the same run:
 *
 * - state: raw better-sqlite3 scanning `event_log`, parsing each payload and inserting one row
 *   per event (memory, seq, kind, id) in one transaction — the least any rebuild must do;
 * - search: a raw FTS5 bulk insert of the same texts (`speaker: content`, `name\ntext`) with the
 *   same tokenizer, in one transaction.
 *
 * Targets: the state read models within 2x the raw scan, the search index within 1.5x the raw
 * FTS5 insert.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { report, syntheticLog, timeMs } from './support.js';

const MEMORY = 'bench';

/** Writes `n` events with the bare store (no read models), in appends of 1,000. */
async function writeBareLog(path: string, n: number): Promise<void> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const log = store.log(MEMORY);
  const events = syntheticLog(n, false);
  for (let at = 0; at < events.length; at += 1000) await log.append(events.slice(at, at + 1000));
  await store.close();
}

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

/** The raw search baseline: the same texts into FTS5, one transaction. */
function rawFts(path: string): number {
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
  const started = performance.now();
  db.exec(
    "CREATE VIRTUAL TABLE raw_fts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')",
  );
  const insert = db.prepare('INSERT INTO raw_fts (text) VALUES (?)');
  db.transaction(() => {
    for (const text of texts) insert.run(text);
  })();
  const ms = performance.now() - started;
  db.close();
  return ms;
}

/** Runs the bench on a log of `n` events. */
export async function benchRebuild(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-rebuild-'));
  try {
    const base = join(dir, 'base.db');
    await writeBareLog(base, n);
    const [raw, ours, fts] = ['raw.db', 'ours.db', 'fts.db'].map((name) => {
      copyFileSync(base, join(dir, name));
      return join(dir, name);
    });
    const rawMs = await timeMs(() => rawScan(raw!));
    let statePageMs = 0;
    let searchMs = 0;
    const memledger = openMemledger({ store: openSqliteStore({ path: ours! }) });
    try {
      const memory = await memledger.memory(MEMORY);
      statePageMs = await timeMs(() => memory.statePage({ limit: 20 }));
      searchMs = await timeMs(() => memory.search('deploy key'));
    } finally {
      await memledger.close();
    }
    const ftsMs = rawFts(fts!);
    report('rebuild', {
      events: n,
      'raw scan + parse + insert (ms)': Math.round(rawMs),
      'first state page, read models rebuilt (ms)': Math.round(statePageMs),
      'state rebuild / raw (target <= 2)': Number((statePageMs / rawMs).toFixed(2)),
      'raw FTS5 bulk insert (ms)': Math.round(ftsMs),
      'first search, index built (ms)': Math.round(searchMs),
      'search build / raw FTS5 (target <= 1.5)': Number((searchMs / ftsMs).toFixed(2)),
      'events per second, state': Math.round((n / statePageMs) * 1000),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
