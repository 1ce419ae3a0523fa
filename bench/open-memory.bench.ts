/**
 * Opening a large SQLite memory in a fresh process (DESIGN.md "Budgets"): time to the first
 * state page and RSS, after a clean stop and after a writer was killed with SIGKILL mid-write,
 * then state pages now and as of random seqs and the first content chunk of a streamed state.
 * The baseline, in the same run: a fresh process that opens the file with raw better-sqlite3
 * and reads the last 100 events of the log. The open call is also taken as the median of
 * {@link OPEN_CALL_PROCESSES} fresh processes. Every figure comes from a fresh child process
 * (bench/open-memory.reader.mjs: plain `node` on the compiled package, as an application runs
 * it, built first when src/ is newer); the file is built once and cached under the OS temp folder.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { cachedMemoryFile, evictFromPageCache, removeDatabase } from './open-memory.file.js';
import {
  buildPackageIfNeeded,
  openMemory,
  openRaw,
  type OpenFigures,
} from './open-memory.readers.js';
import { median, report } from './support.js';

const WRITER = join(import.meta.dirname, 'open-memory.writer.ts');
const MB = 1024 * 1024;
/** State pages, as-of pages and streamed states timed in the fresh process, each. */
const SAMPLES = 200;
/** Fresh processes whose open call the bench takes the median of (first page only). */
const OPEN_CALL_PROCESSES = 15;
/** How long the writer appends before it is killed. */
const WRITE_BEFORE_KILL_MS = 3000;

/**
 * Measures opening a memory of `n` events (default 1 M; `npm run bench -- --large` asks 10 M).
 * The file is built on first use, reused by later runs.
 */
export async function benchOpenMemory(n = 1_000_000): Promise<void> {
  const path = await cachedMemoryFile(n);
  buildPackageIfNeeded();
  const raw = await openRaw(path, SAMPLES);
  const clean = await openMemory(path, SAMPLES);
  // One fresh process swings by several ms either way: the open call's median over many, as the
  // package loads (the bundle) and from dist/'s modules one by one, alternating.
  const opens: OpenFigures[] = [];
  const unbundled: OpenFigures[] = [];
  for (let i = 0; i < OPEN_CALL_PROCESSES; i++) {
    opens.push(await openMemory(path, 0));
    unbundled.push(await openMemory(path, 0, 'open-unbundled'));
  }
  const medianOf = (figure: (open: OpenFigures) => number, of = opens) => median(of.map(figure));
  // Cold: the file's pages dropped from the OS page cache first (where `dd iflag=nocache` can).
  const rawCold = evictFromPageCache(path) ? await openRaw(path, 0) : undefined;
  const cold = evictFromPageCache(path) ? await openMemory(path, 0) : undefined;
  const killed = await afterKill(path, n, true);
  const lagging = await afterKill(path, n, false);

  const ms = (x: number) => Math.round(x * 10) / 10;
  const kill = (label: string, k: Awaited<ReturnType<typeof afterKill>>) => ({
    [`${label}: events committed before SIGKILL`]: k.appended,
    [`${label}: WAL left MB`]: k.walBytes / MB,
    [`${label}: read models behind the log at open`]: k.lag,
    [`${label}: fresh process to first state page ms`]: ms(k.open.fromProcessStartMs),
    [`${label}: from open call ms`]: ms(k.open.fromOpenCallMs),
    [`${label}: / raw (process start) ratio`]: k.open.fromProcessStartMs / raw.fromProcessStartMs,
    [`${label}: RSS after first page MB`]: k.open.rssAfterFirstPage / MB,
  });
  report(`open-memory-${n}`, {
    events: n,
    file: `${path} (${(statSync(path).size / MB).toFixed(0)} MB)`,
    note: 'page cache warm unless marked cold; readers run plain node on the compiled package (dist/)',
    'load average (1 min, 2 shared cores here) at the end': loadavg()[0]!,
    'raw: fresh process to last 100 events ms (baseline)': ms(raw.fromProcessStartMs),
    'raw: of which module imports ms': ms(raw.importMs),
    'raw: from open call ms': ms(raw.fromOpenCallMs),
    'raw: from spawn ms (node start)': raw.fromSpawnMs,
    'raw: RSS MB (baseline)': raw.rss / MB,
    'raw: RSS after its timing loop MB': raw.rssAfterLoop / MB,
    'raw: last 100 events p50 / p99 ms': `${raw.nowP50.toFixed(3)} / ${raw.nowP99.toFixed(3)}`,
    'raw: 100 events before a random seq p50 / p99 ms': `${raw.asOfP50.toFixed(3)} / ${raw.asOfP99.toFixed(3)}`,
    'clean stop: fresh process to first state page ms': ms(clean.fromProcessStartMs),
    'clean stop: of which module imports ms': ms(clean.importMs),
    'clean stop: from open call ms': ms(clean.fromOpenCallMs),
    'clean stop: from spawn ms': clean.fromSpawnMs,
    'clean stop: / raw (process start) ratio': clean.fromProcessStartMs / raw.fromProcessStartMs,
    'clean stop: / raw (open call) ratio': clean.fromOpenCallMs / raw.fromOpenCallMs,
    'clean stop: of which module imports, loading better-sqlite3 ms': ms(clean.driverMs),
    [`clean stop, median of ${OPEN_CALL_PROCESSES} fresh processes: from open call ms`]: ms(
      medianOf((open) => open.fromOpenCallMs),
    ),
    [`clean stop, median of ${OPEN_CALL_PROCESSES} fresh processes: loading better-sqlite3 ms`]: ms(
      medianOf((open) => open.driverMs),
    ),
    [`clean stop, median of ${OPEN_CALL_PROCESSES} fresh processes: from process start ms`]: ms(
      medianOf((open) => open.fromProcessStartMs),
    ),
    [`clean stop, median of ${OPEN_CALL_PROCESSES} fresh processes: open call's minor page faults`]:
      medianOf((open) => open.openCallPageFaults),
    [`unbundled (dist/ modules), median of ${OPEN_CALL_PROCESSES}: from open call ms`]: ms(
      medianOf((open) => open.fromOpenCallMs, unbundled),
    ),
    [`unbundled (dist/ modules), median of ${OPEN_CALL_PROCESSES}: open call's minor page faults`]:
      medianOf((open) => open.openCallPageFaults, unbundled),
    [`unbundled (dist/ modules), median of ${OPEN_CALL_PROCESSES}: from process start ms`]: ms(
      medianOf((open) => open.fromProcessStartMs, unbundled),
    ),
    'clean stop: target ms': '<= 1000',
    'cold cache: raw fresh process to last 100 events ms': rawCold
      ? ms(rawCold.fromProcessStartMs)
      : 'n/a',
    'cold cache: fresh process to first state page ms': cold ? ms(cold.fromProcessStartMs) : 'n/a',
    'cold cache: from open call ms': cold ? ms(cold.fromOpenCallMs) : 'n/a',
    'cold cache: / raw (process start) ratio':
      cold && rawCold ? cold.fromProcessStartMs / rawCold.fromProcessStartMs : 'n/a',
    'RSS after first page MB': clean.rssAfterFirstPage / MB,
    'RSS after the timing loop MB': clean.rssAfterLoop / MB,
    'RSS after first page / raw ratio': clean.rssAfterFirstPage / raw.rss,
    'RSS after the timing loop / raw ratio': clean.rssAfterLoop / raw.rssAfterLoop,
    'RSS target MB': '<= 300',
    samples: SAMPLES,
    'state page now (limit 100) p50 ms': clean.nowP50,
    'state page now (limit 100) p99 ms': clean.nowP99,
    'state page now p99 / raw last 100 p99 ratio': clean.nowP99 / raw.nowP99,
    'state page as of random seq p50 ms': clean.asOfP50,
    'state page as of random seq p99 ms': clean.asOfP99,
    'state page as of p99 / raw 100 before seq p99 ratio': clean.asOfP99 / raw.asOfP99,
    'state page target p99 ms': '<= 5',
    'state page repeated in the warm process, now p50 / p99 ms': `${clean.repeatNowP50.toFixed(3)} / ${clean.repeatNowP99.toFixed(3)}`,
    'state page repeated in the warm process, as of p50 / p99 ms': `${clean.repeatAsOfP50.toFixed(3)} / ${clean.repeatAsOfP99.toFixed(3)}`,
    'state page CPU ms (user + system) now p50 / p99': `${clean.nowCpuP50.toFixed(3)} / ${clean.nowCpuP99.toFixed(3)}`,
    'state page CPU ms (user + system) as of p50 / p99': `${clean.asOfCpuP50.toFixed(3)} / ${clean.asOfCpuP99.toFixed(3)}`,
    'streamState first content chunk p50 ms': clean.streamToContentP50,
    'streamState first content chunk p99 ms': clean.streamToContentP99,
    'streamState first content p99 / raw 100 before seq p99 ratio':
      clean.streamToContentP99 / raw.asOfP99,
    'streamState first content target ms': '<= 50',
    ...kill('kill -9 of a memledger writer', killed),
    ...kill('kill -9 of a bare-store writer', lagging),
    'after kill -9 target ms': '<= 3000',
  });
}

/**
 * Copies the file, lets a child append to the copy for a while, kills it with SIGKILL, and
 * times a fresh process's open of what is left (WAL recovery and read-model catch-up).
 * `withReadModels: false` appends through the bare store, so the read models lag the log.
 */
async function afterKill(path: string, n: number, withReadModels: boolean) {
  const copy = `${path}.killed.db`;
  removeDatabase(copy);
  copyFileSync(path, copy);
  try {
    await killMidWrite(copy, withReadModels);
    const walBytes = existsSync(`${copy}-wal`) ? statSync(`${copy}-wal`).size : 0;
    const open = await openMemory(copy, 0);
    return {
      open,
      walBytes,
      appended: open.head - (n - 1),
      lag: open.head - (open.checkpointBefore ?? -1),
    };
  } finally {
    removeDatabase(copy);
  }
}

/** Starts a writer on `path`, waits until it appends, lets it run, then SIGKILLs it. */
async function killMidWrite(path: string, withReadModels: boolean): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path, String(withReadModels)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('close', (code) => reject(new Error(`The writer exited (${code}) before writing.`)));
  });
  await new Promise((resolve) => setTimeout(resolve, WRITE_BEFORE_KILL_MS));
  child.kill('SIGKILL');
  await exited;
}
