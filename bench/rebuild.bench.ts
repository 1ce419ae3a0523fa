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
 * Each is measured in a fresh process (rebuild.child.ts), as a first open happens: an application
 * starting on a log written before. Targets: the state read models within 2x the raw scan, the
 * search index within 1.5x the raw FTS5 insert.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { report, syntheticLog } from './support.js';

const MEMORY = 'bench';
const CHILD = join(import.meta.dirname, 'rebuild.child.ts');

interface Took {
  readonly wall: number;
  readonly cpu: number;
}

/** Runs one role of rebuild.child.ts on `file` in a fresh process; its figures. */
function inFreshProcess(role: 'raw' | 'fts' | 'ours', file: string): Record<string, Took> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, role, file, MEMORY], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, Took>;
}

/** Writes `n` events with the bare store (no read models), in appends of 1,000. */
async function writeBareLog(path: string, n: number): Promise<void> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const log = store.log(MEMORY);
  const events = syntheticLog(n, false);
  for (let at = 0; at < events.length; at += 1000) await log.append(events.slice(at, at + 1000));
  await store.close();
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
    const rawScanned = inFreshProcess('raw', raw!).raw!;
    const { statePage, search } = inFreshProcess('ours', ours!);
    const ftsInserted = inFreshProcess('fts', fts!).fts!;
    const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
    report('rebuild', {
      events: n,
      'raw scan + parse + insert (ms)': Math.round(rawScanned.wall),
      'first state page, read models rebuilt (ms)': Math.round(statePage!.wall),
      'state rebuild / raw (target <= 2)': ratio(statePage!.wall, rawScanned.wall),
      'the same in CPU time (steadier on a busy machine)': ratio(statePage!.cpu, rawScanned.cpu),
      'raw FTS5 bulk insert (ms)': Math.round(ftsInserted.wall),
      'first search, index built (ms)': Math.round(search!.wall),
      'search build / raw FTS5 (target <= 1.5)': ratio(search!.wall, ftsInserted.wall),
      'the same in CPU time': ratio(search!.cpu, ftsInserted.cpu),
      'events per second, state': Math.round((n / statePage!.wall) * 1000),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
