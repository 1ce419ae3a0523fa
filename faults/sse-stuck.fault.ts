/**
 * Event-stream clients that never read: `clients` raw connections open
 * `GET .../events/stream` and then never read a byte, while 4 writers append ~2 KB messages for
 * `durationMs`. The server child's RSS (from /proc) is sampled every 250 ms; its growth over the
 * RSS measured after the clients connected and a warm-up, less the growth of a run without
 * clients, must stay within 50 MiB (each stream holds about `sseBufferBytes`, 64 KiB by default,
 * once its client stops reading, and is ended after `sseHeartbeatMs` without a read).
 * `sse-stuck-esdb` runs the same with the server on EventStoreDB (faults/fault-stores.ts), where
 * a stream that fell behind catches up from the server's stream a page at a time.
 *
 * The RSS is the plain one by default: V8 lets its heap grow to a few times its live size before
 * a full collection, so the peaks of two identical runs differ by tens of MiB, and a client
 * that holds N MiB live costs a few times N of peak RSS. `MEMLEDGER_FAULT_GC=1` makes the child
 * run a full GC before each of its memory reports (each second): then the RSS follows what is
 * live, which shows what the clients hold, but a bound of 50 MiB on it is loose (before the fix
 * of 549b7fa, 10 clients held ~45 MiB live and passed it that way, while the plain RSS grew
 * +156-176 MiB more than without them).
 */
import { connect, type Socket } from 'node:net';
import { faultStore, type FaultStoreKind } from './fault-stores.js';
import {
  onLines,
  postJson,
  rssOf,
  sleep,
  stderrOf,
  startServerChild,
  stopServerChild,
  tempDir,
  type FaultResult,
} from './support.js';

const MIB = 1024 * 1024;

/** Whether the server child collects its garbage before each memory report (see above). */
const forcedGc = process.env.MEMLEDGER_FAULT_GC === '1';

/** The server child, reporting `process.memoryUsage()` each second (faults/server.child.ts). */
function startMeasuredServer(
  config: Parameters<typeof startServerChild>[0],
): ReturnType<typeof startServerChild> {
  const saved = { ms: process.env.MEMLEDGER_FAULT_MEMORY_MS, gc: process.env.MEMLEDGER_FAULT_GC };
  process.env.MEMLEDGER_FAULT_MEMORY_MS = '1000';
  process.env.MEMLEDGER_FAULT_GC = forcedGc ? '1' : '0';
  // The child copies the environment when it is spawned, before the first await.
  const started = startServerChild(config);
  for (const [name, value] of [
    ['MEMLEDGER_FAULT_MEMORY_MS', saved.ms],
    ['MEMLEDGER_FAULT_GC', saved.gc],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return started;
}

/**
 * `clients` stuck stream clients during `durationMs` of appends, against the same appends with no
 * stream client at all (a baseline run first, on its own server): a server's RSS grows under 4
 * writers anyway (V8's heap is collected lazily, SQLite's page cache fills), so what the stuck
 * clients cost is the difference, and that is what the target bounds. Both growths are reported.
 */
export async function stuckSseClients(
  clients: number,
  durationMs: number,
  kind: FaultStoreKind = 'sqlite',
): Promise<FaultResult> {
  const baseline = await appendsWithStuckClients(0, durationMs, kind);
  const stuck = await appendsWithStuckClients(clients, durationMs, kind);
  const growth = stuck.growthMiB - baseline.growthMiB;
  const died = stuck.serverDied || baseline.serverDied;
  return {
    name: kind === 'sqlite' ? 'sse-stuck' : 'sse-stuck-esdb',
    size: `${clients} clients, ${durationMs / 1000} s (and a baseline run without clients)`,
    target: `server RSS grows <= 50 MiB more than without the stuck clients${forcedGc ? ' (full GC each second)' : ''}`,
    passed:
      growth <= 50 && stuck.failedAppends === 0 && baseline.failedAppends === 0 && died === '',
    summary:
      `${died === '' ? '' : `${died.split('\n')[0]}; `}with ${clients} stuck clients: ${stuck.summary}; ` +
      `without: ${baseline.summary}; the clients' share: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB`,
    figures: {
      clients,
      seconds: durationMs / 1000,
      growthByClientsMiB: growth,
      growthMiB: stuck.growthMiB,
      growthWithoutClientsMiB: baseline.growthMiB,
      baselineRssMiB: stuck.baselineRssMiB,
      peakRssMiB: stuck.peakRssMiB,
      appended: stuck.appended,
      appendedWithoutClients: baseline.appended,
      failedAppends: stuck.failedAppends + baseline.failedAppends,
      socketsClosed: stuck.socketsClosed,
      serverDied: died,
      forcedGc,
      memoryAtPeak: stuck.memoryAtPeak,
      memoryAtPeakWithoutClients: baseline.memoryAtPeak,
    },
  };
}

interface StuckRun {
  readonly summary: string;
  readonly growthMiB: number;
  readonly baselineRssMiB: number;
  readonly peakRssMiB: number;
  readonly appended: number;
  readonly failedAppends: number;
  readonly socketsClosed: number;
  readonly samples: number;
  readonly serverDied: string;
  /** The child's last process.memoryUsage() before the peak (with MEMLEDGER_FAULT_MEMORY_MS). */
  readonly memoryAtPeak: string;
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)}`;
/** `rss/heapUsed/heapTotal/external/arrayBuffers` in MiB, or '' without a sample. */
function breakdown(usage: NodeJS.MemoryUsage | undefined): string {
  if (usage === undefined) return '';
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = usage;
  return `rss ${mib(rss)}, heap ${mib(heapUsed)}/${mib(heapTotal)}, external ${mib(external)}, arrayBuffers ${mib(arrayBuffers)} MiB`;
}

/** One server, `clients` stuck clients, 4 writers for `durationMs`; RSS sampled every 250 ms. */
async function appendsWithStuckClients(
  clients: number,
  durationMs: number,
  kind: FaultStoreKind,
): Promise<StuckRun> {
  const temp = tempDir(`sse-${kind}`);
  const store = await faultStore(kind, temp.dir);
  const server = await startMeasuredServer(store.serverConfig());
  const { port } = new URL(server.url);
  const sockets: Socket[] = [];
  const base = `${server.url}/api/memories/sse`;
  const content = 'x'.repeat(2048);
  let appended = 0;
  let failedAppends = 0;
  let closedByServer = 0;
  let lastMemory: NodeJS.MemoryUsage | undefined;
  let memoryAtPeak: NodeJS.MemoryUsage | undefined;
  onLines(server.child, (line) => {
    if (line.startsWith('memory ')) lastMemory = JSON.parse(line.slice(7)) as NodeJS.MemoryUsage;
  });
  try {
    for (let i = 0; i < 20; i++) await postJson(`${base}/messages`, { speaker: 'w', content });
    for (let i = 0; i < clients; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => {
        socket.write(
          `GET /api/memories/sse/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`,
        );
        socket.pause(); // never read: the kernel buffers fill, then the server's
      });
      socket.on('close', () => (closedByServer += 1));
      socket.on('error', () => undefined);
      sockets.push(socket);
    }
    await sleep(1000);
    const baseline = rssOf(server.pid);
    let peak = baseline;
    const samples: number[] = [];
    const deadline = Date.now() + durationMs;
    let died = '';
    server.child.once('exit', (code, signal) => {
      died = `server exited (code ${String(code)}, signal ${String(signal)}): ${stderrOf(server.child).slice(-600)}`;
    });
    const sampler = setInterval(() => {
      if (died !== '') return;
      const rss = rssOf(server.pid);
      samples.push(rss);
      if (rss > peak) memoryAtPeak = lastMemory;
      peak = Math.max(peak, rss);
    }, 250);
    const writer = async () => {
      while (Date.now() < deadline && died === '') {
        try {
          const { status } = await postJson(`${base}/messages`, { speaker: 'w', content });
          if (status === 201) appended += 1;
          else failedAppends += 1;
        } catch {
          failedAppends += 1;
        }
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    clearInterval(sampler);
    if (died === '') peak = Math.max(peak, rssOf(server.pid));
    const growth = (peak - baseline) / MIB;
    return {
      summary: `RSS ${(baseline / MIB).toFixed(1)} -> peak ${(peak / MIB).toFixed(1)} MiB (+${growth.toFixed(1)} MiB) over ${appended} appends of 2 KB, ${failedAppends} failed${memoryAtPeak ? ` (child at peak: ${breakdown(memoryAtPeak)})` : ''}`,
      growthMiB: growth,
      baselineRssMiB: baseline / MIB,
      peakRssMiB: peak / MIB,
      appended,
      failedAppends,
      socketsClosed: closedByServer,
      samples: samples.length,
      serverDied: died,
      memoryAtPeak: breakdown(memoryAtPeak),
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await stopServerChild(server);
    await store.close();
    temp.remove();
  }
}
