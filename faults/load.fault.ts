/**
 * Sustained appends: autocannon posts messages at `connections` connections for `seconds` to a
 * server child on a fresh SQLite file as the application runs it by default: synchronous FULL,
 * content sealed with a key store beside the file (one new key per message). `load-esdb` runs the
 * same with the server on EventStoreDB (the in-process test server, faults/fault-stores.ts).
 * Target: no error or non-2xx answer, p99 <= 50 ms, and no stall: no request waiting over 100 ms,
 * no gap over 100 ms between two completed requests.
 *
 * The measured window follows a warm-up of `warmUpSeconds` (10 s in the full run) at the same
 * connections on another memory of the same server, in the same client (see `posting`): a freshly
 * started server spends its first seconds compiling (JIT) and sizing its heap, and a third to two
 * thirds of the slow answers of a cold run fell in its first 10 s. A server in service is warm; the
 * warm-up's own figures are reported beside the window's, so a cold start is shown, not hidden.
 *
 * Answers over 100 ms are written to `faults/results/load.stalls.txt` (`load-esdb.stalls.txt`) with
 * their wall-clock start; with `MEMLEDGER_FAULT_STALL_MS` set, the server child's lines on what
 * each slower request and each long gap of its event loop overlapped (faults/stall.probe.ts) go
 * there too.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { faultStore, type FaultStoreKind } from './fault-stores.js';
import {
  onLines,
  percentile,
  startServerChild,
  stopServerChild,
  tempDir,
  type FaultResult,
} from './support.js';

/** What one phase of the run measured, from the client's own timing of each answer. */
interface Phase {
  /** Each answer's time, milliseconds (exact: autocannon's histogram rounds to whole ones). */
  readonly times: number[];
  failed: number;
  over100: number;
  maxGap: number;
  lastAt: number;
}

const newPhase = (): Phase => ({ times: [], failed: 0, over100: 0, maxGap: 0, lastAt: 0 });

/**
 * One autocannon run against the server: `warmUpSeconds` on the memory `warm-up`, then `seconds`
 * on the memory `load`, by switching the path of every request sent after the warm-up. One
 * client for both phases, because a new autocannon instance stalls its own first answers: it
 * sets its connections up while the first answers wait unread, and they showed 60-150 ms each,
 * ~10 ms apart, at the start of a second instance, while the server child timed every request
 * of the run under 40 ms (faults/stall.probe.ts) and a plain Node client's 16 fresh connections
 * to a fresh memory saw no answer over 60 ms. An answer belongs to the phase its request was
 * sent in (its arrival minus its time).
 */
async function posting(
  serverUrl: string,
  connections: number,
  warmUpSeconds: number,
  seconds: number,
  stalls: string[],
): Promise<{ warm: Phase; window: Phase }> {
  const pathOf = (memoryId: string) => `/api/memories/${memoryId}/messages`;
  const startedAt = performance.now();
  const switchAt = startedAt + warmUpSeconds * 1000;
  const warm = newPhase();
  const window = newPhase();
  const phaseOf = (sentAt: number) => (sentAt >= switchAt ? window : warm);
  let finish: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // The callback form returns the instance, whose 'response' events time each answer.
  const instance = autocannon(
    {
      url: serverUrl,
      connections,
      duration: warmUpSeconds + seconds,
      timeout: 10,
      requests: [
        {
          method: 'POST',
          path: pathOf('warm-up'),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            speaker: 'load',
            content: 'a message of about sixty characters, sent again and again',
          }),
          setupRequest: (request) => ({
            ...request,
            path: pathOf(performance.now() >= switchAt ? 'load' : 'warm-up'),
          }),
        },
      ],
    },
    (error) => (error ? fail(error) : finish()),
  );
  instance.on('response', (_client, status, _bytes, responseTime) => {
    const now = performance.now();
    const phase = phaseOf(now - responseTime);
    phase.times.push(responseTime);
    if (status >= 300) phase.failed += 1;
    if (responseTime > 100) {
      phase.over100 += 1;
      // Wall-clock times, to set beside the server child's `block` lines.
      stalls.push(
        `slow-response ${JSON.stringify({ memoryId: phase === window ? 'load' : 'warm-up', at: Math.round(Date.now() - responseTime), ms: responseTime })}`,
      );
    }
    if (phase.lastAt > 0) phase.maxGap = Math.max(phase.maxGap, now - phase.lastAt);
    phase.lastAt = now;
  });
  // A request that failed or timed out has no answer time: it counts against its phase by now.
  instance.on('reqError', () => void (phaseOf(performance.now()).failed += 1));
  await done;
  return { warm, window };
}

/** autocannon at `connections` connections for `seconds`, after the warm-up. */
export async function loadTest(
  connections: number,
  seconds: number,
  warmUpSeconds: number,
  kind: FaultStoreKind = 'sqlite',
): Promise<FaultResult> {
  const temp = tempDir(`load-${kind}`);
  const store = await faultStore(kind, temp.dir);
  // The application's default (MEMLEDGER_ENCRYPTION=on): each message also creates a key.
  const server = await startServerChild(store.serverConfig({ sealed: true }));
  const stalls: string[] = [];
  onLines(server.child, (line) => {
    if (/^(stall|block)/.test(line)) stalls.push(line);
  });
  try {
    const { warm, window } = await posting(server.url, connections, warmUpSeconds, seconds, stalls);
    const ms = (times: readonly number[], p: number) => Number(percentile(times, p).toFixed(1));
    // A loop, not Math.max(...times): a spread of ~10^5 arguments can overflow the stack.
    const max = (times: readonly number[]) =>
      Number(times.reduce((top, t) => (t > top ? t : top), 0).toFixed(1));
    const [p50, p99, p99_9] = [50, 99, 99.9].map((p) => ms(window.times, p)) as [
      number,
      number,
      number,
    ];
    return {
      name: kind === 'sqlite' ? 'load' : 'load-esdb',
      size: `${connections} connections, ${seconds} s`,
      target: '0 errors; p99 <= 50 ms, no stall over 100 ms',
      passed:
        window.failed === 0 &&
        warm.failed === 0 &&
        window.times.length > 0 &&
        p99 <= 50 &&
        window.over100 === 0 &&
        window.maxGap <= 100,
      summary: `after a ${warmUpSeconds} s warm-up on another memory (${warm.times.length} requests, ${warm.failed} errors, p99 ${ms(warm.times, 99)} ms, max ${max(warm.times)} ms, ${warm.over100} over 100 ms): ${window.times.length} requests (${Math.round(window.times.length / seconds)}/s), ${window.failed} errors, p50 ${p50} ms, p99 ${p99} ms, p99.9 ${p99_9} ms, max ${max(window.times)} ms (${window.over100} over 100 ms), longest gap between answers ${window.maxGap.toFixed(0)} ms`,
      figures: {
        connections,
        seconds,
        requests: window.times.length,
        requestsPerSecond: window.times.length / seconds,
        errors: window.failed,
        p50Ms: p50,
        p99Ms: p99,
        p999Ms: p99_9,
        maxMs: max(window.times),
        requestsOver100Ms: window.over100,
        longestGapMs: window.maxGap,
        warmUpSeconds,
        warmUpRequests: warm.times.length,
        warmUpErrors: warm.failed,
        warmUpP99Ms: ms(warm.times, 99),
        warmUpMaxMs: max(warm.times),
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
      writeFileSync(
        join(dir, `${kind === 'sqlite' ? 'load' : 'load-esdb'}.stalls.txt`),
        `${stalls.join('\n')}\n`,
      );
    }
    await store.close();
    temp.remove();
  }
}
