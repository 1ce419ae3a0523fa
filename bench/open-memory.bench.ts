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
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openMemledger } from '../src/memory/index.js';
import { READ_MODEL_VERSION } from '../src/read-models/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { SQLITE_SCHEMA_VERSION } from '../src/store/sqlite/sqlite.schema.js';
import {
  MIX_VERSION,
  median,
  mixedEventBatches,
  percentile,
  report,
  seededRandom,
} from './support.js';

const READER = join(import.meta.dirname, 'open-memory.reader.mjs');
const WRITER = join(import.meta.dirname, 'open-memory.writer.ts');
const BUILD_IF_NEEDED = join(import.meta.dirname, '..', 'scripts', 'build-if-needed.mjs');
const MB = 1024 * 1024;
/** State pages, as-of pages and streamed states timed in the fresh process, each. */
const SAMPLES = 200;
/** Fresh processes whose open call the bench takes the median of (first page only). */
const OPEN_CALL_PROCESSES = 15;
/** How long the writer appends before it is killed. */
const WRITE_BEFORE_KILL_MS = 3000;

/** Samples of one pass of state pages, in ms, as the `open` reader prints them. */
interface PageSamples {
  readonly now: number[];
  readonly asOf: number[];
  readonly cpuNow: number[];
  readonly cpuAsOf: number[];
  readonly toContent: number[];
}

/** What both readers print about their process: when the first read was done, and memory. */
interface ProcessFigures {
  readonly importMs: number;
  readonly fromProcessStartMs: number;
  readonly fromOpenCallMs: number;
  readonly fromSpawnMs: number;
  readonly rssAfterLoop: number;
  readonly head: number;
}

/** What the `open` reader prints (see open-memory.reader.mjs). */
interface OpenOutput extends ProcessFigures {
  /** Loading better-sqlite3, timed apart among the imports (open-memory.reader.mjs). */
  readonly driverMs: number;
  readonly rssAfterFirstPage: number;
  readonly checkpointBefore: number | null;
  readonly fresh: PageSamples;
  readonly repeat: PageSamples;
}

/** What the `raw` reader prints. */
interface RawOutput extends ProcessFigures {
  readonly rss: number;
  readonly now: number[];
  readonly asOf: number[];
}

/** p50 and p99 of state pages (or raw reads) now and as of a random seq, in ms. */
interface PagePercentiles {
  readonly nowP50: number;
  readonly nowP99: number;
  readonly asOfP50: number;
  readonly asOfP99: number;
}

/** The `open` reader's figures, percentiles taken. */
interface OpenFigures extends Omit<OpenOutput, 'fresh' | 'repeat'>, PagePercentiles {
  /** CPU time (user + system, all threads) of one state page, now and as of a random seq. */
  readonly nowCpuP50: number;
  readonly nowCpuP99: number;
  readonly asOfCpuP50: number;
  readonly asOfCpuP99: number;
  /** The same kind of pages timed again in the same (now warm) process. */
  readonly repeatNowP50: number;
  readonly repeatNowP99: number;
  readonly repeatAsOfP50: number;
  readonly repeatAsOfP99: number;
  readonly streamToContentP50: number;
  readonly streamToContentP99: number;
}

/** The `raw` reader's figures, percentiles taken. */
type RawFigures = Omit<RawOutput, 'now' | 'asOf'> & PagePercentiles;

/**
 * Measures opening a memory of `n` events (default 1 M; `npm run bench -- --large` asks 10 M).
 * The file is built on first use, reused by later runs.
 */
export async function benchOpenMemory(n = 1_000_000): Promise<void> {
  const path = await cachedMemoryFile(n);
  buildPackageIfNeeded();
  const raw = await openRaw(path, SAMPLES);
  const clean = await openMemory(path, SAMPLES);
  // One fresh process swings by several ms either way: the open call's median over many.
  const opens: OpenFigures[] = [];
  for (let i = 0; i < OPEN_CALL_PROCESSES; i++) opens.push(await openMemory(path, 0));
  const medianOf = (figure: (open: OpenFigures) => number) => median(opens.map(figure));
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

/**
 * The random positions (fractions of the head) the readers read as of: the same seeded list
 * for every reader, so the raw baseline and memledger read as of the same seqs.
 */
function positions(samples: number): number[] {
  const random = seededRandom(7);
  return Array.from({ length: 3 * samples }, () => random());
}

const p = (xs: readonly number[], q: number) => (xs.length > 0 ? percentile(xs, q) : NaN);

/** A fresh process opening memledger on `path`, timing `samples` pages after the first. */
async function openMemory(path: string, samples: number): Promise<OpenFigures> {
  const out = await runReader<OpenOutput>(['open', path, String(samples)], samples);
  const { fresh, repeat } = out;
  return {
    ...out,
    nowP50: p(fresh.now, 50),
    nowP99: p(fresh.now, 99),
    asOfP50: p(fresh.asOf, 50),
    asOfP99: p(fresh.asOf, 99),
    nowCpuP50: p(fresh.cpuNow, 50),
    nowCpuP99: p(fresh.cpuNow, 99),
    asOfCpuP50: p(fresh.cpuAsOf, 50),
    asOfCpuP99: p(fresh.cpuAsOf, 99),
    repeatNowP50: p(repeat.now, 50),
    repeatNowP99: p(repeat.now, 99),
    repeatAsOfP50: p(repeat.asOf, 50),
    repeatAsOfP99: p(repeat.asOf, 99),
    streamToContentP50: p(fresh.toContent, 50),
    streamToContentP99: p(fresh.toContent, 99),
  };
}

/** A fresh process reading `path` with raw better-sqlite3 (the baseline). */
async function openRaw(path: string, samples: number): Promise<RawFigures> {
  const out = await runReader<RawOutput>(['raw', path, String(samples)], samples);
  return {
    ...out,
    nowP50: p(out.now, 50),
    nowP99: p(out.now, 99),
    asOfP50: p(out.asOf, 50),
    asOfP99: p(out.asOf, 99),
  };
}

/** Builds dist/ when src/ is newer (the readers load the compiled package). */
function buildPackageIfNeeded(): void {
  const built = spawnSync(process.execPath, [BUILD_IF_NEEDED], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`Building dist/ failed (${built.status}).`);
}

/** Runs the reader in a fresh process and parses the JSON it prints last. */
async function runReader<T>(args: readonly string[], samples: number): Promise<T> {
  // MEMLEDGER_BENCH_CPU_PROF=<dir> profiles each reader (node --cpu-prof) into that folder.
  const profile = process.env.MEMLEDGER_BENCH_CPU_PROF;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...flags, READER, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      MEMLEDGER_BENCH_SPAWNED_AT: String(Date.now()),
      MEMLEDGER_BENCH_POSITIONS: JSON.stringify(positions(samples)),
    },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
  // 'close', not 'exit': it comes after the last of the child's output has been read.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const last = out.trim().split('\n').at(-1);
  if (code !== 0 || !last) throw new Error(`Reader ${args.join(' ')} failed (${code}): ${out}`);
  return JSON.parse(last) as T;
}

/** The cached file of `n` mixed events, built when missing (into a side file, renamed when whole). */
async function cachedMemoryFile(n: number): Promise<string> {
  const dir = join(tmpdir(), 'memledger-bench');
  mkdirSync(dir, { recursive: true });
  const layout = `log${SQLITE_SCHEMA_VERSION}-rm${READ_MODEL_VERSION}-mix${MIX_VERSION}`;
  const path = join(dir, `open-memory-${n}-${layout}.db`);
  if (existsSync(path)) {
    console.log(`open-memory: reusing ${path} (delete it to rebuild)`);
    return path;
  }
  const building = `${path}.building`;
  removeDatabase(building);
  console.log(`open-memory: building ${n.toLocaleString('en-US')} events into ${path}`);
  const start = performance.now();
  const store = openSqliteStore({ path: building, synchronous: 'NORMAL' });
  const memledger = openMemledger({ store, closeStore: false });
  const log = store.log();
  let written = 0;
  for (const batch of mixedEventBatches({ n })) {
    await log.append(batch);
    written += batch.length;
    if (written % 500_000 === 0 || written === n) {
      const seconds = (performance.now() - start) / 1000;
      const rss = (process.memoryUsage().rss / MB).toFixed(0);
      console.log(
        `  ${written.toLocaleString('en-US')} events, ${seconds.toFixed(0)} s, RSS ${rss} MB`,
      );
    }
  }
  // The file as production leaves it: the search index caught up too (it follows appends).
  await (await memledger.memory()).search('indexed');
  const checkpoint = (await memledger.memory()).readModelSeq;
  await memledger.close();
  await store.close();
  if (checkpoint !== n - 1)
    throw new Error(`The read models reached seq ${checkpoint}, expected ${n - 1}.`);
  renameSync(building, path);
  console.log(`open-memory: built in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return path;
}

/** Drops the file's pages from the OS page cache (GNU dd; false where that is not available). */
function evictFromPageCache(path: string): boolean {
  const dd = spawnSync('dd', [`if=${path}`, 'iflag=nocache', 'count=0', 'status=none']);
  return dd.status === 0;
}

/** Deletes a SQLite file with its WAL and shared-memory files. */
function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
