/**
 * Transactions timed for the stall probe (faults/stall.probe.ts): every transaction function
 * better-sqlite3 hands out after {@link timeTransactions} is wrapped, so each top-level
 * transaction of the server (the log's appends, the read models') becomes a span with its body
 * (our code: guard, inserts, read-model hooks; the rest is BEGIN + COMMIT: WAL writes, fsync, an
 * automatic checkpoint), the main thread's CPU time and run-queue wait, and whether SQLite's
 * automatic checkpoint ran in it.
 *
 * Time off the CPU without waiting for a core would be I/O (fsync), but in the server child the
 * schedstat CPU figure summed over a run came out above the wall time (1.2-2.2 times) while a
 * plain script on the same box reads consistent figures; the cause was not found, so the CPU /
 * run-queue / off-CPU split is indicative only. Durations and the checkpoint flag are exact.
 */
import { openSync, readFileSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

export interface Span {
  readonly start: number;
  readonly end: number;
  readonly cpuMs: number;
  readonly waitMs: number;
  readonly kind: string;
  /** Transactions: the body's share (the rest is BEGIN + COMMIT). */
  readonly bodyMs?: number;
  /** Transactions: whether SQLite's automatic checkpoint ran in its COMMIT. */
  readonly checkpointed?: boolean;
}

export const round = (ms: number) => Math.round(ms * 10) / 10;

/** Main-thread CPU time and run-queue wait so far, in ms (Linux). */
export function sched(): { cpu: number; wait: number } {
  const [cpu, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
  return { cpu: cpu! / 1e6, wait: wait! / 1e6 };
}

/**
 * WAL frames copied into the database so far (`nBackfill` of the -shm file's checkpoint info,
 * after the two 48-byte index headers; native byte order): it grows only when a checkpoint runs,
 * and a restart of the log (the next write after a full checkpoint) sets it back to 0.
 */
function backfilled(shm: number | undefined): number {
  if (shm === undefined) return 0;
  const buf = Buffer.alloc(100);
  if (readSync(shm, buf, 0, 100, 0) < 100) return 0;
  return buf.readUInt32LE(96);
}

type TxMode = 'deferred' | 'immediate' | 'exclusive';
type TxFn = ((...args: unknown[]) => unknown) & Record<TxMode, (...a: unknown[]) => unknown>;

/**
 * Times every transaction made from now on; `onSpan` gets each one. With `autocheckpoint` set,
 * each connection's `wal_autocheckpoint` is set to it first (the A/B switch: 0 = off).
 * Returns the run's figures so far.
 */
export function timeTransactions(
  onSpan: (span: Span) => void,
  autocheckpoint: number | undefined,
): () => Record<string, unknown> {
  const time = { count: 0, ms: 0, cpu: 0, runQueue: 0, offCpuOver5: 0, offCpuOver20: 0 };
  const checkpoints = { count: 0, ms: 0, offCpu: 0, maxMs: 0 };
  let longestMs = 0;
  let longestCommitMs = 0;
  type Worst = { at: number; ms: number; offCpu: number; runQueue: number; checkpointed: boolean };
  const worst: Worst[] = [];
  const note = (span: Span) => {
    const ms = span.end - span.start;
    const offCpu = ms - span.cpuMs - span.waitMs;
    time.count += 1;
    time.ms += ms;
    time.cpu += span.cpuMs;
    time.runQueue += span.waitMs;
    if (offCpu > 5) time.offCpuOver5 += 1;
    if (offCpu > 20) time.offCpuOver20 += 1;
    if (span.checkpointed) {
      checkpoints.count += 1;
      checkpoints.ms += ms;
      checkpoints.offCpu += offCpu;
      checkpoints.maxMs = Math.max(checkpoints.maxMs, ms);
    }
    longestMs = Math.max(longestMs, ms);
    longestCommitMs = Math.max(longestCommitMs, ms - (span.bodyMs ?? 0));
    if (worst.length < 5 || offCpu > worst.at(-1)!.offCpu) {
      worst.push({
        at: Math.round(performance.timeOrigin + span.start),
        ms: round(ms),
        offCpu: round(offCpu),
        runQueue: round(span.waitMs),
        checkpointed: span.checkpointed ?? false,
      });
      worst.sort((a, b) => b.offCpu - a.offCpu);
      worst.length = Math.min(worst.length, 5);
    }
    onSpan(span);
  };

  const tuned = new WeakSet<object>();
  const proto = Database.prototype as unknown as {
    transaction: (fn: (...args: unknown[]) => unknown) => TxFn;
  };
  const original = proto.transaction;
  // `this` is the connection: its -shm file tells whether a checkpoint ran.
  proto.transaction = function (this: Database.Database, fn) {
    if (autocheckpoint !== undefined && !tuned.has(this)) {
      tuned.add(this);
      this.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
    }
    let body = 0;
    let depth = 0;
    const inner = function (this: unknown, ...args: unknown[]) {
      const t0 = performance.now();
      depth += 1;
      try {
        return fn.apply(this, args);
      } finally {
        depth -= 1;
        if (depth === 0) body += performance.now() - t0;
      }
    };
    const tx = original.call(this, inner);
    let shm: number | undefined;
    const shmOf = () => {
      if (shm === undefined && this.name !== ':memory:' && this.name !== '') {
        try {
          shm = openSync(`${this.name}-shm`, 'r');
        } catch {
          // Not in WAL mode yet: no checkpoints to see.
        }
      }
      return shm;
    };
    const timed =
      (run: (...a: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        // A nested call (a savepoint inside another transaction) is part of the outer span.
        if (this.inTransaction) return run(...args);
        body = 0;
        const start = performance.now();
        const s0 = sched();
        const frames0 = backfilled(shmOf());
        try {
          return run(...args);
        } finally {
          // The counters first: a wait while reading them must not count beyond the span.
          const s1 = sched();
          const end = performance.now();
          note({
            start,
            end,
            cpuMs: s1.cpu - s0.cpu,
            waitMs: s1.wait - s0.wait,
            kind: 'tx',
            checkpointed: backfilled(shm) > frames0,
            bodyMs: body,
          });
        }
      };
    const out = timed(tx) as TxFn;
    for (const mode of ['deferred', 'immediate', 'exclusive'] as const) out[mode] = timed(tx[mode]);
    return out;
  };

  const rounded = (o: Record<string, number>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));
  return () => ({
    ...rounded(time),
    longestMs: round(longestMs),
    longestCommitMs: round(longestCommitMs),
    checkpoints: rounded(checkpoints),
    worstOffCpu: worst,
  });
}
