/**
 * The first open of a log written without read models (issue 29): a file written by the bare
 * SQLite store — as the README's first example writes it, and as every read-model layout change
 * leaves one — opened through `openMemledger` to its first state page, and then its first search,
 * against baselines on copies of the same file in the same run:
 *
 * - state: raw better-sqlite3 scanning `event_log`, parsing each payload and inserting one row
 *   per event (memory, seq, kind, id) in one transaction — the least any rebuild must do;
 * - search: a raw FTS5 bulk insert of the same texts (`speaker: content`, `name\ntext`) with the
 *   same tokenizer, in one transaction; and the same into an index set as memledger sets its own
 *   (fewer merges), so what the settings buy is not taken for the build's own speed.
 *
 * Each is measured in a fresh process (rebuild.child.ts), as a first open happens: an application
 * starting on a log written before, five rounds on fresh copies of the file (one round swung from
 * 1.42x to 2.35x for the same code on an idle box), the ratios taken within each round. Targets: the state read models within 2x the raw scan, the
 * search index within 1.5x the raw FTS5 insert.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { median, report, syntheticLog } from './support.js';

const MEMORY = 'bench';
const CHILD = join(import.meta.dirname, 'rebuild.child.ts');

interface Took {
  readonly wall: number;
  readonly cpu: number;
}

/** Runs one role of rebuild.child.ts on `file` in a fresh process; its figures. */
function inFreshProcess(
  role: 'raw' | 'fts' | 'fts-tuned' | 'ours',
  file: string,
): Record<string, Took> {
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

/** Runs the bench on a log of `n` events, `rounds` times on fresh copies (the order rotating). */
export async function benchRebuild(n: number, rounds = 5): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-rebuild-'));
  try {
    const base = join(dir, 'base.db');
    await writeBareLog(base, n);
    const runs: { raw: Took; statePage: Took; search: Took; fts: Took; 'fts-tuned': Took }[] = [];
    const roles = ['raw', 'ours', 'fts', 'fts-tuned'] as const;
    for (let round = 0; round < rounds; round++) {
      const took: Record<string, Took> = {};
      // A first open is measured on a file fresh from the disk cache's point of view as much as
      // the others: each role gets its own copy, and who goes first rotates.
      for (const role of [...roles.slice(round % 4), ...roles.slice(0, round % 4)]) {
        const file = join(dir, `${role}-${round}.db`);
        copyFileSync(base, file);
        const figures = inFreshProcess(role, file);
        rmSync(file, { force: true });
        rmSync(`${file}-wal`, { force: true });
        rmSync(`${file}-shm`, { force: true });
        Object.assign(took, figures);
      }
      runs.push(took as (typeof runs)[number]);
    }
    const mid = (of: (run: (typeof runs)[number]) => number) => median(runs.map(of));
    const spread = (of: (run: (typeof runs)[number]) => number) => {
      const all = runs.map(of);
      return `${Math.min(...all).toFixed(2)}-${Math.max(...all).toFixed(2)}`;
    };
    const ratio = (a: number) => Number(a.toFixed(2));
    report('rebuild', {
      events: n,
      rounds,
      'raw scan + parse + insert (ms, median)': Math.round(mid((run) => run.raw.wall)),
      'first state page, read models rebuilt (ms, median)': Math.round(
        mid((run) => run.statePage.wall),
      ),
      'state rebuild / raw (target <= 2), median of rounds': ratio(
        mid((run) => run.statePage.wall / run.raw.wall),
      ),
      'the same, range over rounds': spread((run) => run.statePage.wall / run.raw.wall),
      'the same in CPU time, median': ratio(mid((run) => run.statePage.cpu / run.raw.cpu)),
      'raw FTS5 bulk insert (ms, median)': Math.round(mid((run) => run.fts.wall)),
      'first search, index built (ms, median)': Math.round(mid((run) => run.search.wall)),
      'search build / raw FTS5 (target <= 1.5), median of rounds': ratio(
        mid((run) => run.search.wall / run.fts.wall),
      ),
      'the same, range over rounds ': spread((run) => run.search.wall / run.fts.wall),
      'the same in CPU time, median ': ratio(mid((run) => run.search.cpu / run.fts.cpu)),
      'raw FTS5 insert into an index set as ours (automerge 8), ms median': Math.round(
        mid((run) => run['fts-tuned'].wall),
      ),
      'search build / that, median of rounds': ratio(
        mid((run) => run.search.wall / run['fts-tuned'].wall),
      ),
      'events per second, state (median)': Math.round(
        (n / mid((run) => run.statePage.wall)) * 1000,
      ),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
