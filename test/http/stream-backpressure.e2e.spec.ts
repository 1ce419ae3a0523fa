/**
 * The event stream's memory per client is bounded: a client that does not read gets nothing more
 * once the bound waits for it (the replay and the live events alike wait for the socket to drain,
 * then catch up from the log), and a client that takes nothing for a heartbeat is ended with a
 * comment telling it to reconnect with Last-Event-ID, from where it gets the rest.
 */
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { RunningServer } from '../../src/http/index.js';
import { RECONNECT_COMMENT } from '../../src/http/sse-session.js';
import { openSse, startTestServer } from './http-app.js';

const BOUND = 64 * 1024;
/** How long a client may take nothing before its stream ends (sseHeartbeatMs). */
const HEARTBEAT = 3000;
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
  return new Promise((resolve) => {
    // 'close' too: a client cut before it read everything must fail the test, not hang it.
    socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** Resolves once the server has ended `response` (polled: a stream has no event for it). */
async function endedByServer(response: () => ServerResponse | undefined): Promise<void> {
  while (response()?.writableEnded !== true) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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

/** Resumes reading and resolves with everything until `done(text)` holds or the stream ends. */
function readUntil(socket: Socket, done: (text: string) => boolean): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.resume();
  return new Promise((resolve) => {
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (done(text)) resolve(text);
    });
    socket.on('end', () => resolve(text));
  });
}

async function appendDocuments(server: RunningServer, count: number): Promise<void> {
  const memory = await server.memledger.memory('default');
  for (let i = 0; i < count; i += 1) await memory.addDocument({ name: `doc ${i}`, text: TEXT });
}

describe('event stream backpressure', () => {
  let server: RunningServer;
  const responses: ServerResponse[] = [];
  beforeEach(async () => {
    server = await startTestServer({ sseBufferBytes: BOUND, sseHeartbeatMs: HEARTBEAT });
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

  it('ends a client that takes nothing for a heartbeat while live events wait, with a reconnect comment, losing nothing', async () => {
    // given a client on an empty log that stops reading
    const socket = await stalledClient(server.url);
    // (it reads again as soon as the server ended its stream: the cut comes a heartbeat later)
    const read = endedByServer(() => responses.at(-1)).then(() => readToEnd(socket));
    // when ~20 MB of events are appended
    await appendDocuments(server, DOCUMENTS);
    // then its stream ends with the reconnect comment after a gapless prefix of the events
    const text = await read;
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

describe('event stream to a client that pauses', () => {
  let server: RunningServer;
  const responses: ServerResponse[] = [];
  beforeEach(async () => {
    // A heartbeat far longer than the test: the client is slow, not gone.
    server = await startTestServer({ sseBufferBytes: BOUND, sseHeartbeatMs: 60_000 });
    server.app.getHttpServer().on('request', (_req, res: ServerResponse) => responses.push(res));
  });
  afterEach(async () => {
    responses.splice(0);
    await server.close();
  });

  it('holds no more than the bound for it while live events pile up, then catches it up from the log', async () => {
    // given a client on an empty log that stops reading
    const socket = await stalledClient(server.url);
    // when ~20 MB of events are appended, far more than the bound and the sockets' buffers
    await appendDocuments(server, DOCUMENTS);
    // then what waits for it in the server passed the bound (it fell behind) by one event at most
    const waiting = await settledBuffered(() => responses.at(-1));
    expect(waiting).toBeGreaterThan(BOUND);
    expect(waiting).toBeLessThan(BOUND + TEXT.length + 4096);
    // and once it reads again it gets every event, in order, without being told to reconnect
    const text = await readUntil(socket, (t) => t.includes(`id: ${DOCUMENTS - 1}\n`));
    socket.destroy();
    expect(text).not.toContain(RECONNECT_COMMENT);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: DOCUMENTS }, (_, i) => i));
    // ~20 MB through HTTP and back out: on a loaded 2-core machine that nears the default 30 s.
  }, 90_000);
});
