/**
 * Event-stream clients that never read: `clients` raw connections open
 * `GET .../events/stream` and then never read a byte, while 4 writers append ~2 KB messages for
 * `durationMs`. The server child's RSS (from /proc) is sampled every 250 ms; its growth over the
 * RSS measured after the clients connected and a warm-up must stay within 50 MiB (each stream
 * may hold `sseBufferBytes`, 4 MiB by default, before the server ends it).
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
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

/** `clients` stuck stream clients during `durationMs` of appends. */
export async function stuckSseClients(clients: number, durationMs: number): Promise<FaultResult> {
  const temp = tempDir('sse');
  const server = await startServerChild({
    store: { kind: 'sqlite', path: join(temp.dir, 'm.db') },
  });
  const { port } = new URL(server.url);
  const sockets: Socket[] = [];
  const base = `${server.url}/api/memories/sse`;
  const content = 'x'.repeat(2048);
  let appended = 0;
  let failedAppends = 0;
  let closedByServer = 0;
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
      name: 'sse-stuck',
      size: `${clients} clients, ${durationMs / 1000} s`,
      target: 'server RSS grows <= 50 MiB',
      passed: growth <= 50 && failedAppends === 0 && died === '',
      summary: `${died === '' ? '' : `${died.split('\n')[0]}; `}RSS ${(baseline / MIB).toFixed(1)} -> peak ${(peak / MIB).toFixed(1)} MiB (+${growth.toFixed(1)} MiB) over ${appended} appends of 2 KB, ${failedAppends} failed`,
      figures: {
        clients,
        seconds: durationMs / 1000,
        baselineRssMiB: baseline / MIB,
        peakRssMiB: peak / MIB,
        growthMiB: growth,
        appended,
        failedAppends,
        socketsClosed: closedByServer,
        samples: samples.length,
        serverDied: died,
      },
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await stopServerChild(server);
    temp.remove();
  }
}
