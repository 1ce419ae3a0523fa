/**
 * Shared helpers of the fault suite: child processes the suite owns (and kills), HTTP on
 * 127.0.0.1, log checks, RSS sampling and result files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { HttpConfig } from '../src/http/index.js';
import { foldLog } from '../src/cli/fold-log.js';
import type { MemoryStore } from '../src/store/event-log.port.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';

/** One test's outcome: its figures, whether it met its target, and why not. */
export interface FaultResult {
  readonly name: string;
  readonly size: string;
  readonly target: string;
  readonly passed: boolean;
  /** What was measured, in one line. */
  readonly summary: string;
  readonly figures: Record<string, number | string | boolean>;
}

const HERE = import.meta.dirname;
const owned = new Set<ChildProcess>();

// Every child is killed by our own code, also when the suite itself is interrupted.
const killOwned = () => {
  for (const child of owned) child.kill('SIGKILL');
};
process.on('exit', killOwned);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killOwned();
    process.exit(130);
  });
}

/** Writes `faults/results/<name>.json`. */
export function writeResult(result: FaultResult): void {
  const dir = join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${result.name}.json`),
    JSON.stringify({ ...result, at: new Date().toISOString() }, null, 2),
  );
}

/** A fresh temp folder and a function that removes it. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `memledger-faults-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `faults/<script>` in a child Node process through tsx; the suite owns and kills it. */
export function spawnScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: join(HERE, '..'),
    env: { ...process.env, ...env },
  });
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  // Keep the last of stderr for error messages without letting the pipe fill up.
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-2000);
  });
  Object.defineProperty(child, 'stderrTail', { get: () => tail });
  return child;
}

/** What a child wrote on stderr lately (for messages). */
export const stderrOf = (child: ChildProcess): string =>
  (child as ChildProcess & { stderrTail?: string }).stderrTail ?? '';

/** Calls `onLine` for each line the child writes on stdout. */
export function onLines(child: ChildProcess, onLine: (line: string) => void): void {
  createInterface({ input: child.stdout! }).on('line', onLine);
}

/** Resolves when the child has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** kill -9, then waits for the exit. */
export async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await exited(child);
}

/** Resolves with the first stdout line matching `pattern`, or rejects after `timeoutMs`. */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`no line ${String(pattern)} in ${timeoutMs} ms: ${stderrOf(child)}`));
    }, timeoutMs);
    // 'close', not 'exit': a child that prints its line and exits at once can be reported as
    // exited before its stdout is read; 'close' comes after the last of stdout and stderr.
    child.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`child exited before ${String(pattern)}: ${stderrOf(child)}`));
    });
    onLines(child, (line) => {
      const match = line.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
  });
}

/** A memledger server in a child process (faults/server.child.ts). */
export interface ServerChild {
  readonly child: ChildProcess;
  readonly url: string;
  readonly pid: number;
}

/** Starts `startServer(config)` on 127.0.0.1 and a free port in a child process. */
export async function startServerChild(config: HttpConfig): Promise<ServerChild> {
  const child = spawnScript('server.child.ts', [JSON.stringify(config)]);
  const [, url] = await waitForLine(child, /^listening (http:\/\/127\.0\.0\.1:\d+)$/);
  return { child, url: url!, pid: child.pid! };
}

/** Stops a server child with SIGTERM (it closes cleanly), or SIGKILL after 10 s. */
export async function stopServerChild(server: ServerChild): Promise<void> {
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited(server.child);
  clearTimeout(timer);
}

/** The resident set size of a process in bytes (Linux /proc); 0 once it is gone. */
export function rssOf(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

/** The p-th percentile (0-100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a log holds, checked against the ids whose appends were acknowledged. */
export interface LogCheck {
  readonly events: number;
  /** Acknowledged ids not in the log. */
  readonly lost: number;
  /** Ids stored more than once (any id, acknowledged or not). */
  readonly duplicates: number;
  /** `ok` or the first violation `foldLog` (the code of `memledger verify`) throws. */
  readonly verify: string;
}

/** Reads a memory of a SQLite file and checks every acknowledged id is stored exactly once. */
export function checkSqliteLog(
  path: string,
  memoryId: string,
  acknowledged: ReadonlySet<string>,
): Promise<LogCheck> {
  return checkLog(openSqliteStore({ path }), memoryId, acknowledged);
}

/** {@link checkSqliteLog} on any store; closes it. */
export async function checkLog(
  store: MemoryStore,
  memoryId: string,
  acknowledged: ReadonlySet<string>,
): Promise<LogCheck> {
  try {
    const log = store.log(memoryId);
    const counts = new Map<string, number>();
    for await (const event of log.read()) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
    let lost = 0;
    for (const id of acknowledged) if (!counts.has(id)) lost += 1;
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    let verify = 'ok';
    try {
      await foldLog(log);
    } catch (error) {
      verify = error instanceof Error ? error.message : String(error);
    }
    return { events: [...counts.values()].reduce((a, b) => a + b, 0), lost, duplicates, verify };
  } finally {
    await store.close();
  }
}

/**
 * Runs the real `memledger verify --all` on a SQLite file (a path) or on the store the global
 * options name (`FaultStore.cli`): its exit code and output.
 */
export async function verifyCli(
  target: string | { readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv },
): Promise<{ code: number; output: string }> {
  const { args, env } = typeof target === 'string' ? { args: ['--db', target], env: {} } : target;
  const child = spawnScript('verify.child.ts', [...args, 'verify', '--all'], env);
  let output = '';
  onLines(child, (line) => (output += `${line}\n`));
  await exited(child);
  return { code: child.exitCode ?? -1, output: (output + stderrOf(child)).trim() };
}

/** A POST of JSON with a deadline; never throws for an HTTP status, only for no answer. */
export async function postJson(
  url: string,
  body: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, json: text };
  }
}

/** A random integer in [min, max]. */
export const between = (random: () => number, min: number, max: number) =>
  min + Math.floor(random() * (max - min + 1));

/** The benches' seeded PRNG (mulberry32), so both suites draw the same way. */
export { seededRandom } from '../bench/support.js';
