/**
 * The event stream's memory per client is bounded: a replay to a client that does not read
 * waits for the socket to drain instead of buffering the log, and a client that falls too far
 * behind on live events is ended with a comment telling it to reconnect with Last-Event-ID,
 * from where it gets the rest.
 */
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { RunningServer } from '../../src/http/index.js';
import { RECONNECT_COMMENT } from '../../src/http/sse-session.js';
import { openSse, startTestServer } from './http-app.js';

const BOUND = 64 * 1024;
const DOCUMENTS = 40;
/** ~500 KB each: 40 of them (~20 MB) overflow the loopback socket buffers many times over. */
const TEXT = 'x'.repeat(500_000);
const STREAM = '/api/memories/default/events/stream';

/** Opens the stream on a raw socket, waits for its first bytes, then stops reading. */
async function stalledClient(url: string, lastEventId?: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.write(
    `GET ${STREAM} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n` +
      (lastEventId === undefined ? '' : `Last-Event-ID: ${lastEventId}\r\n`) +
      '\r\n',
  );
  await new Promise((resolve) => socket.once('data', resolve));
  socket.pause();
  return socket;
}

/** Resumes reading and resolves with everything until the server ends the response. */
function readToEnd(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  return new Promise((resolve) =>
    socket.on('end', () => resolve(Buffer.concat(chunks).toString())),
  );
}

/** The most bytes ever seen waiting in `response`, sampled until the figure stops moving. */
async function settledBuffered(response: () => ServerResponse | undefined): Promise<number> {
  let max = 0;
  let last = -1;
  let still = 0;
  while (still < 5) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = response()?.writableLength ?? 0;
    max = Math.max(max, now);
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return max;
}

async function appendDocuments(server: RunningServer, count: number): Promise<void> {
  const memory = await server.memledger.memory('default');
  for (let i = 0; i < count; i += 1) await memory.addDocument({ name: `doc ${i}`, text: TEXT });
}

describe('event stream backpressure', () => {
  let server: RunningServer;
  const responses: ServerResponse[] = [];
  beforeEach(async () => {
    server = await startTestServer({ sseBufferBytes: BOUND });
    server.app.getHttpServer().on('request', (_req, res: ServerResponse) => responses.push(res));
  });
  afterEach(async () => {
    responses.splice(0);
    await server.close();
  });

  it('replays a large log to a client that does not read without buffering it', async () => {
    // given a ~20 MB log and a client that stops reading at once
    await appendDocuments(server, DOCUMENTS);
    const socket = await stalledClient(server.url);
    // then the bytes waiting for it stay near one event, far from the log's size
    expect(await settledBuffered(() => responses.at(-1))).toBeLessThan(1024 * 1024);
    socket.destroy();
  });

  it('ends a client that falls behind on live events with a reconnect comment, losing nothing', async () => {
    // given a client on an empty log that stops reading
    const socket = await stalledClient(server.url);
    // when ~20 MB of events are appended
    await appendDocuments(server, DOCUMENTS);
    // then its stream ends with the reconnect comment after a gapless prefix of the events
    const text = await readToEnd(socket);
    // (the raw socket sees chunked framing: the comment is the last data before the 0 chunk)
    expect(text.endsWith('\r\n0\r\n\r\n')).toBe(true);
    expect(text.slice(0, -'\r\n0\r\n\r\n'.length).endsWith(RECONNECT_COMMENT)).toBe(true);
    socket.destroy();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(ids.map((_, i) => i));
    expect(ids.length).toBeLessThan(DOCUMENTS);
    // and reconnecting with Last-Event-ID gives the rest
    const rest = await openSse(`${server.url}${STREAM}`, {
      'Last-Event-ID': String(ids.at(-1) ?? -1),
    });
    const messages = await rest.waitFor(DOCUMENTS - ids.length, 20_000);
    expect(messages.map((m) => Number(m.id))).toEqual(
      Array.from({ length: DOCUMENTS - ids.length }, (_, i) => ids.length + i),
    );
    rest.close();
  });
});
