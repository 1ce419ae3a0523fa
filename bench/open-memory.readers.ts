/**
 * The fresh reader processes of bench/open-memory.bench.ts (open-memory.reader.mjs): what each
 * role prints, how it is spawned, and its samples turned into percentiles.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { percentile, seededRandom } from './support.js';

const READER = join(import.meta.dirname, 'open-memory.reader.mjs');
const BUILD_IF_NEEDED = join(import.meta.dirname, '..', 'scripts', 'build-if-needed.mjs');

/** Samples of one pass of state pages, in ms, as the `open` reader prints them. */
export interface PageSamples {
  readonly now: number[];
  readonly asOf: number[];
  readonly cpuNow: number[];
  readonly cpuAsOf: number[];
  readonly toContent: number[];
}

/** What both readers print about their process: when the first read was done, and memory. */
export interface ProcessFigures {
  readonly importMs: number;
  readonly fromProcessStartMs: number;
  readonly fromOpenCallMs: number;
  readonly fromSpawnMs: number;
  readonly rssAfterLoop: number;
  readonly head: number;
}

/** What the `open` reader prints (see open-memory.reader.mjs). */
export interface OpenOutput extends ProcessFigures {
  /** Loading better-sqlite3, timed apart among the imports (open-memory.reader.mjs). */
  readonly driverMs: number;
  /** Minor page faults from the open call to the first page (memory touched the first time). */
  readonly openCallPageFaults: number;
  readonly rssAfterFirstPage: number;
  readonly checkpointBefore: number | null;
  readonly fresh: PageSamples;
  readonly repeat: PageSamples;
}

/** What the `raw` reader prints. */
export interface RawOutput extends ProcessFigures {
  readonly rss: number;
  readonly now: number[];
  readonly asOf: number[];
}

/** p50 and p99 of state pages (or raw reads) now and as of a random seq, in ms. */
export interface PagePercentiles {
  readonly nowP50: number;
  readonly nowP99: number;
  readonly asOfP50: number;
  readonly asOfP99: number;
}

/** The `open` reader's figures, percentiles taken. */
export interface OpenFigures extends Omit<OpenOutput, 'fresh' | 'repeat'>, PagePercentiles {
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
export type RawFigures = Omit<RawOutput, 'now' | 'asOf'> & PagePercentiles;

/**
 * The random positions (fractions of the head) the readers read as of: the same seeded list
 * for every reader, so the raw baseline and memledger read as of the same seqs.
 */
function positions(samples: number): number[] {
  const random = seededRandom(7);
  return Array.from({ length: 3 * samples }, () => random());
}

const p = (xs: readonly number[], q: number) => (xs.length > 0 ? percentile(xs, q) : NaN);

/**
 * A fresh process opening memledger on `path`, timing `samples` pages after the first; `role`
 * `open-unbundled` loads dist/'s modules instead of the bundle (open-memory.reader.mjs).
 */
export async function openMemory(
  path: string,
  samples: number,
  role: 'open' | 'open-unbundled' = 'open',
): Promise<OpenFigures> {
  const out = await runReader<OpenOutput>([role, path, String(samples)], samples);
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
export async function openRaw(path: string, samples: number): Promise<RawFigures> {
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
export function buildPackageIfNeeded(): void {
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
