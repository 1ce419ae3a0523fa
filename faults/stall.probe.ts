/**
 * Why a request of the server child was slow (the load fault's diagnostics, never the product).
 * Installed by faults/server.child.ts when `MEMLEDGER_FAULT_STALL_MS` is set: every HTTP request
 * that took longer than that is printed as `stall <json>` with what overlapped it:
 *
 * - `tx`: better-sqlite3 transactions (faults/stall.transactions.ts), with the longest one's body
 *   (our code; the rest is BEGIN + COMMIT), CPU time and run-queue wait from
 *   /proc/thread-self/schedstat;
 * - `gc`: garbage-collection pauses (PerformanceObserver 'gc' entries);
 * - `block`: gaps of the event loop over 20 ms (a 5 ms timer that came late), with the same CPU /
 *   run-queue split.
 *
 * Each is given as the total milliseconds inside the request's window and the longest one. Every
 * gap of the loop over the threshold is also printed as `block <json>` (wall-clock `at`, to set
 * beside the load fault's slow answers, which include the time a request waited in the socket).
 * On SIGTERM the child prints `stall-summary <json>`: counts and maxima over the whole run, the
 * transactions by where their time went, the checkpoints, GC pauses over 20 ms.
 * `MEMLEDGER_FAULT_WAL_AUTOCHECKPOINT=<pages>` sets every connection's `wal_autocheckpoint`
 * (0 = off), to run the same load without SQLite's automatic checkpoint.
 */
import { subscribe } from 'node:diagnostics_channel';
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { round, sched, timeTransactions, type Span } from './stall.transactions.js';

const KEEP_MS = 5_000;

/** Starts recording; `thresholdMs` is the request duration worth a `stall` line. */
export function installStallProbe(thresholdMs: number, out: (line: string) => void): void {
  const spans: Span[] = [];
  const record = (span: Span) => {
    spans.push(span);
    // Only the last few seconds can overlap a request still open.
    while (spans.length > 0 && spans[0]!.end < span.end - KEEP_MS) spans.shift();
  };
  const totals = {
    firstRequestAt: 0,
    blocks: 0,
    requests: 0,
    slow: 0,
    over100: 0,
    gcMax: 0,
  };

  // GC pauses over 20 ms (kind: 1 scavenge, 2 mark-compact, 4 incremental, 8 weak callbacks).
  const longGc: { at: number; ms: number; kind: number }[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const s = { start: entry.startTime, end: entry.startTime + entry.duration };
      record({ ...s, cpuMs: entry.duration, waitMs: 0, kind: 'gc' });
      totals.gcMax = Math.max(totals.gcMax, entry.duration);
      if (entry.duration > 20)
        longGc.push({
          at: Math.round(performance.timeOrigin + entry.startTime),
          ms: round(entry.duration),
          kind: (entry as { detail?: { kind?: number } }).detail?.kind ?? 0,
        });
    }
  }).observe({ entryTypes: ['gc'] });

  const env = process.env.MEMLEDGER_FAULT_WAL_AUTOCHECKPOINT;
  const transactions = timeTransactions(record, env === undefined ? undefined : Number(env));

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let lastTick = performance.now();
  let lastSched = sched();
  setInterval(() => {
    // The counters first: a wait while reading them must not count beyond the wall-clock span.
    const s = sched();
    const now = performance.now();
    if (now - lastTick > 20) {
      const block = {
        start: lastTick,
        end: now,
        cpuMs: s.cpu - lastSched.cpu,
        waitMs: s.wait - lastSched.wait,
        kind: 'block',
      };
      // What ran inside the block, before the block itself joins the list.
      if (now - lastTick > thresholdMs)
        out(
          `block ${JSON.stringify({
            at: Math.round(performance.timeOrigin + lastTick),
            ms: round(now - lastTick),
            cpu: round(block.cpuMs),
            runQueue: round(block.waitMs),
            ...overlap(lastTick, now),
          })}`,
        );
      record(block);
      totals.blocks += 1;
    }
    lastTick = now;
    lastSched = s;
  }, 5).unref();

  const started = new WeakMap<object, number>();
  subscribe('http.server.request.start', (message) => {
    started.set((message as { response: object }).response, performance.now());
  });
  subscribe('http.server.response.finish', (message) => {
    const response = (message as { response: object }).response;
    const start = started.get(response);
    if (start === undefined) return;
    const end = performance.now();
    const ms = end - start;
    totals.requests += 1;
    totals.firstRequestAt ||= Math.round(performance.timeOrigin + start);
    if (ms > 100) totals.over100 += 1;
    if (ms <= thresholdMs) return;
    totals.slow += 1;
    out(
      `stall ${JSON.stringify({ at: Math.round(performance.timeOrigin + start), ms: round(ms), ...overlap(start, end) })}`,
    );
  });

  const overlap = (start: number, end: number) => {
    const by: Record<string, { n: number; ms: number; max: number; longest?: Span }> = {};
    for (const span of spans) {
      const ms = Math.min(end, span.end) - Math.max(start, span.start);
      if (ms <= 0) continue;
      const entry = (by[span.kind] ??= { n: 0, ms: 0, max: 0 });
      entry.n += 1;
      entry.ms += ms;
      if (span.end - span.start > entry.max) {
        entry.max = span.end - span.start;
        entry.longest = span;
      }
    }
    return Object.fromEntries(
      Object.entries(by).map(([kind, e]) => [
        kind,
        {
          n: e.n,
          ms: round(e.ms),
          max: round(e.max),
          ...(e.longest && {
            longestCpu: round(e.longest.cpuMs),
            longestRunQueue: round(e.longest.waitMs),
            ...(e.longest.bodyMs !== undefined && { longestBody: round(e.longest.bodyMs) }),
          }),
        },
      ]),
    );
  };

  process.once('SIGTERM', () => {
    out(
      `stall-summary ${JSON.stringify({
        ...totals,
        tx: transactions(),
        longGc: longGc.slice(0, 50),
        loopDelayMaxMs: round(loop.max / 1e6),
        loopDelayP99Ms: round(loop.percentile(99) / 1e6),
      })}`,
    );
  });
}
