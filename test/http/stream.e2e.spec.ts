/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- supertest bodies are untyped JSON, asserted field by field */
import request from 'supertest';
import { openSse, startTestServer } from './http-app.js';

type Started = Awaited<ReturnType<typeof startTestServer>>;

describe('event stream (SSE) and export (JSON Lines)', () => {
  let s: Started;
  beforeEach(async () => {
    s = await startTestServer();
  });
  afterEach(async () => {
    await s.close();
  });
  const post = (path: string, body: object) => request(s.url).post(path).send(body).expect(201);
  const M = '/api/memories/default';

  it('replays from fromSeq, then sends live events, each once, with id = seq', async () => {
    for (const content of ['zero', 'one', 'two'])
      await post(`${M}/messages`, { speaker: 'u', content });
    const sse = await openSse(`${s.url}${M}/events/stream?fromSeq=1`);
    try {
      expect(sse.response.statusCode).toBe(200);
      expect(sse.response.headers['content-type']).toMatch(/^text\/event-stream/);
      const replayed = await sse.waitFor(2);
      expect(replayed.map((m) => m.id)).toEqual(['1', '2']);
      expect(JSON.parse(replayed[0]!.data)).toMatchObject({ seq: 1, content: 'one' });
      await post(`${M}/messages`, { speaker: 'u', content: 'three' });
      await post(`${M}/deletions`, {
        targets: [JSON.parse(replayed[0]!.data).id as string],
        reason: 'live',
      });
      const all = await sse.waitFor(4);
      expect(all.map((m) => m.id)).toEqual(['1', '2', '3', '4']);
      expect(JSON.parse(all[3]!.data)).toMatchObject({ kind: 'deletion', seq: 4 });
      await new Promise((r) => setTimeout(r, 150));
      expect(sse.messages).toHaveLength(4); // no duplicates
    } finally {
      sse.close();
    }
  });

  it('resumes after Last-Event-ID, which wins over fromSeq', async () => {
    for (const content of ['a', 'b', 'c']) await post(`${M}/messages`, { speaker: 'u', content });
    const sse = await openSse(`${s.url}${M}/events/stream?fromSeq=0`, { 'Last-Event-ID': '1' });
    try {
      expect((await sse.waitFor(1)).map((m) => m.id)).toEqual(['2']);
    } finally {
      sse.close();
    }
  });

  it('streams an empty memory and then its first event', async () => {
    const sse = await openSse(`${s.url}/api/memories/empty/events/stream`);
    try {
      await post('/api/memories/empty/messages', { speaker: 'u', content: 'first' });
      const [first] = await sse.waitFor(1);
      expect(first!.id).toBe('0');
    } finally {
      sse.close();
    }
  });

  it('rejects a bad fromSeq with 400 before streaming', async () => {
    const res = await request(s.url).get(`${M}/events/stream?fromSeq=-4`).expect(400);
    expect(res.body.issues).toEqual([expect.objectContaining({ path: 'fromSeq' })]);
  });

  it('exports JSON Lines that round-trip into another memory unchanged', async () => {
    const m = (await post(`${M}/messages`, { speaker: 'u', content: 'line\nbreak "quoted"' })).body;
    await post(`${M}/documents`, { name: 'd.md', text: 'doc', sha256: 'a'.repeat(64) });
    await post(`${M}/recall`, { query: 'line' });
    await post(`${M}/deletions`, { targets: [m.id], reason: 'gone', requestedBy: 'user' });
    const res = await request(s.url)
      .get(`${M}/export`)
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const text = res.body as string;
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const exported = lines.map(
      (l) =>
        JSON.parse(l) as {
          seq: number;
          kind: string;
          version: number;
          recordedBy?: unknown;
          retrieval?: unknown;
        },
    );
    expect(exported.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    // Each line names the schema version of its kind (core/versions.ts), for later releases.
    expect(exported.map((e) => e.version)).toEqual([3, 3, 3, 2]);
    // Import through the API: each line, without kind and seq, to the route of its kind, and
    // without what the server records itself (who appended it, how a recall retrieved).
    const route = {
      message: 'messages',
      document: 'documents',
      recall: 'recalls',
      deletion: 'deletions',
    };
    for (const {
      seq: _seq,
      kind,
      version: _version,
      recordedBy: _recordedBy,
      retrieval: _retrieval,
      ...fields
    } of exported) {
      await post(`/api/memories/copy/${route[kind as keyof typeof route]}`, fields);
    }
    const again = await request(s.url)
      .get('/api/memories/copy/export')
      .buffer(true)
      .parse((r, done) => {
        let body = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (body += c));
        r.on('end', () => done(null, body));
      });
    // The one difference: the copy's recall was recorded by a caller (its retrieval is always
    // `external`), where the original was the server's own lexical recall.
    expect(again.body).toBe(
      text.replace('"retrieval":{"method":"lexical"', '"retrieval":{"method":"external"'),
    );
  });
});
