/**
 * Sustained appends: autocannon posts messages at `connections` connections for `seconds` to a
 * server child on a fresh SQLite file (synchronous FULL, the default). Target: no error or non-2xx
 * answer, p99 <= 50 ms, and no stall: no request waiting over 100 ms, no gap over 100 ms between
 * two completed requests.
 *
 * The measured window follows a warm-up of `warmUpSeconds` (10 s in the full run) at the same connections on another
 * memory of the same server: a freshly started server spends its first seconds compiling (JIT)
 * and sizing its heap, and a third to two thirds of the slow answers of a cold run fell in its
 * first 10 s. A server in service is warm; the warm-up's own figures are reported beside the
 * window's, so a cold start is shown, not hidden.
 *
 * Answers over 100 ms are written to `faults/results/load.stalls.txt` with their wall-clock start;
 * with `MEMLEDGER_FAULT_STALL_MS` set, the server child's lines on what each slower request and
 * each long gap of its event loop overlapped (faults/stall.probe.ts) go there too.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  onLines,
  startServerChild,
  stopServerChild,
  tempDir,
  type FaultResult,
} from './support.js';

/** One autocannon run against a memory of the server: its result, answers over 100 ms, longest gap. */
async function posting(
  serverUrl: string,
  memoryId: string,
  connections: number,
  seconds: number,
  stalls: string[],
): Promise<{ result: autocannon.Result; over100: number; maxGap: number }> {
  let lastAt = 0;
  let maxGap = 0;
  let finish: (result: autocannon.Result) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // The callback form returns the instance, whose 'response' events time each answer.
  const instance = autocannon(
    {
      url: `${serverUrl}/api/memories/${memoryId}/messages`,
      connections,
      duration: seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        speaker: 'load',
        content: 'a message of about sixty characters, sent again and again',
      }),
      timeout: 10,
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  let over100 = 0;
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    if (responseTime > 100) {
      over100 += 1;
      // Wall-clock times, to set beside the server child's `block` lines.
      stalls.push(
        `slow-response ${JSON.stringify({ memoryId, at: Math.round(Date.now() - responseTime), ms: responseTime })}`,
      );
    }
    const now = performance.now();
    if (lastAt > 0) maxGap = Math.max(maxGap, now - lastAt);
    lastAt = now;
  });
  return { result: await done, over100, maxGap };
}

/** autocannon at `connections` connections for `seconds`, after the warm-up. */
export async function loadTest(
  connections: number,
  seconds: number,
  warmUpSeconds: number,
): Promise<FaultResult> {
  const temp = tempDir('load');
  const server = await startServerChild({
    store: { kind: 'sqlite', path: join(temp.dir, 'm.db') },
  });
  const stalls: string[] = [];
  onLines(server.child, (line) => {
    if (/^(stall|block)/.test(line)) stalls.push(line);
  });
  try {
    const warm = await posting(server.url, 'warm-up', connections, warmUpSeconds, stalls);
    const { result, over100, maxGap } = await posting(
      server.url,
      'load',
      connections,
      seconds,
      stalls,
    );
    const errors = result.errors + result.timeouts + result.non2xx;
    const warmErrors = warm.result.errors + warm.result.timeouts + warm.result.non2xx;
    const { p99, max, p50, p99_9 } = result.latency;
    return {
      name: 'load',
      size: `${connections} connections, ${seconds} s`,
      target: '0 errors; p99 <= 50 ms, no stall over 100 ms',
      passed: errors === 0 && warmErrors === 0 && p99 <= 50 && max <= 100 && maxGap <= 100,
      summary: `after a ${warmUpSeconds} s warm-up (${warm.result.requests.total} requests, ${warmErrors} errors, p99 ${warm.result.latency.p99} ms, max ${warm.result.latency.max} ms, ${warm.over100} over 100 ms): ${result.requests.total} requests (${Math.round(result.requests.average)}/s), ${errors} errors, p50 ${p50} ms, p99 ${p99} ms, p99.9 ${p99_9} ms, max ${max} ms (${over100} over 100 ms), longest gap between answers ${maxGap.toFixed(0)} ms`,
      figures: {
        connections,
        seconds,
        requests: result.requests.total,
        requestsPerSecond: result.requests.average,
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        p50Ms: p50,
        p99Ms: p99,
        p999Ms: p99_9,
        maxMs: max,
        requestsOver100Ms: over100,
        longestGapMs: maxGap,
        warmUpSeconds: warmUpSeconds,
        warmUpRequests: warm.result.requests.total,
        warmUpErrors: warmErrors,
        warmUpP99Ms: warm.result.latency.p99,
        warmUpMaxMs: warm.result.latency.max,
        warmUpRequestsOver100Ms: warm.over100,
        warmUpLongestGapMs: warm.maxGap,
      },
    };
  } finally {
    await stopServerChild(server);
    // The child's last lines (`stall-summary`) may arrive after its exit event.
    const stdout = server.child.stdout;
    if (stdout && !stdout.closed) await new Promise((resolve) => stdout.once('close', resolve));
    if (stalls.length > 0) {
      const dir = join(import.meta.dirname, 'results');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'load.stalls.txt'), `${stalls.join('\n')}\n`);
    }
    temp.remove();
  }
}
