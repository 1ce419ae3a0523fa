/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- supertest bodies are untyped JSON, asserted field by field */
import request from 'supertest';
import { openTestApp, type TestApp } from './http-app.js';

const M = '/api/memories/default';

describe('HTTP API on SQLite: every route', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await openTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const post = (path: string, body: object) => request(t.server).post(path).send(body);

  it('records a message and answers 201 with the stored, sequenced event', async () => {
    const res = await post(`${M}/messages`, {
      speaker: 'user',
      content: 'The deploy key lives in the vault.',
      sessionId: 's-1',
      actor: 'chat',
      timestamp: '2026-01-02T03:04:05+01:00',
    }).expect(201);
    expect(res.body).toMatchObject({
      kind: 'message',
      seq: 0,
      speaker: 'user',
      sessionId: 's-1',
      actor: 'chat',
      source: 'unknown',
      timestamp: '2026-01-02T02:04:05.000Z',
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('adds a document with text/plain as the default media type', async () => {
    const res = await post(`${M}/documents`, { name: 'policy.md', text: 'Rotate weekly.' }).expect(
      201,
    );
    expect(res.body).toMatchObject({ kind: 'document', seq: 0, mediaType: 'text/plain' });
  });

  it('recall appends a Recall naming the items and returns them', async () => {
    const hit = (await post(`${M}/messages`, { speaker: 'u', content: 'deploy key in vault' }))
      .body;
    await post(`${M}/messages`, { speaker: 'u', content: 'lunch at noon' });
    const res = await post(`${M}/recall`, { query: 'deploy key', actor: 'agent' }).expect(201);
    expect(res.body.recall).toMatchObject({
      kind: 'recall',
      seq: 2,
      recalled: [hit.id],
      actor: 'agent',
    });
    expect(res.body.items.map((i: { id: string }) => i.id)).toEqual([hit.id]);
  });

  it('records a recall the caller computed', async () => {
    const m = (await post(`${M}/messages`, { speaker: 'u', content: 'x' })).body;
    const res = await post(`${M}/recalls`, { query: 'own retrieval', recalled: [m.id] }).expect(
      201,
    );
    expect(res.body).toMatchObject({ kind: 'recall', seq: 1, recalled: [m.id] });
  });

  it('deletes content; the state hides it, get-by-id still returns it marked deleted', async () => {
    const m = (await post(`${M}/messages`, { speaker: 'u', content: 'card 4242' })).body;
    const d = (
      await post(`${M}/deletions`, { targets: [m.id], reason: 'PII', requestedBy: 'user' }).expect(
        201,
      )
    ).body;
    expect(d).toMatchObject({ kind: 'deletion', seq: 1, targets: [m.id], reason: 'PII' });
    const state = (await request(t.server).get(`${M}/state`).expect(200)).body;
    expect(state.visibleMessages).toEqual([]);
    expect(state.deleted[m.id]).toEqual(d);
    const lookup = (await request(t.server).get(`${M}/events/${m.id}`).expect(200)).body;
    expect(lookup).toEqual({ event: m, deleted: true, deletedBy: d, erasedBy: null });
  });

  it('GET state?upToSeq= shows the state as it stood after that event, paged by offset/limit', async () => {
    const a = (await post(`${M}/messages`, { speaker: 'u', content: 'one' })).body;
    const b = (await post(`${M}/messages`, { speaker: 'u', content: 'two' })).body;
    await post(`${M}/deletions`, { targets: [a.id], reason: 'r' });
    const before = (await request(t.server).get(`${M}/state?upToSeq=1`).expect(200)).body;
    expect(before.lastSeq).toBe(1);
    expect(before.visibleMessages).toEqual([a, b]);
    expect(before.deleted).toEqual({});
    const empty = (await request(t.server).get(`${M}/state?upToSeq=-1`).expect(200)).body;
    expect(empty.visibleMessages).toEqual([]);
    const page = (await request(t.server).get(`${M}/state?upToSeq=1&offset=1&limit=1`).expect(200))
      .body;
    expect(page.visibleMessages).toEqual([b]);
    expect(page.page).toEqual({
      offset: 1,
      limit: 1,
      next: { visibleMessages: null, visibleDocuments: null, deleted: null },
    });
    const now = (await request(t.server).get(`${M}/state`).expect(200)).body;
    expect(now.visibleMessages).toEqual([b]);
    expect(now.totals).toMatchObject({ messages: 2, visibleMessages: 1, deleted: 1 });
  });

  it('GET search finds visible content, as of a seq too, and writes nothing', async () => {
    const a = (await post(`${M}/messages`, { speaker: 'u', content: 'vault password' })).body;
    await post(`${M}/deletions`, { targets: [a.id], reason: 'r' });
    const now = (await request(t.server).get(`${M}/search?q=vault`).expect(200)).body;
    expect(now).toEqual([]);
    const then = (await request(t.server).get(`${M}/search?q=vault&upToSeq=0&limit=5`).expect(200))
      .body;
    expect(then).toHaveLength(1);
    expect(then[0]).toMatchObject({ id: a.id, kind: 'message', seq: 0, item: a });
    const events = (await request(t.server).get(`${M}/events`).expect(200)).body;
    expect(events).toHaveLength(2);
  });

  it('GET recall-stats counts recalls per item', async () => {
    const m = (await post(`${M}/messages`, { speaker: 'u', content: 'deploy key' })).body;
    await post(`${M}/recall`, { query: 'deploy' });
    await post(`${M}/recall`, { query: 'key' });
    const stats = (await request(t.server).get(`${M}/recall-stats`).expect(200)).body;
    expect(stats[m.id]).toMatchObject({ count: 2, lastRecalledSeq: 2 });
  });

  it('GET items/:id/history tells when it was written, every recall, and the deletion', async () => {
    const m = (await post(`${M}/messages`, { speaker: 'u', content: 'deploy key' })).body;
    const { recall } = (await post(`${M}/recall`, { query: 'deploy', actor: 'agent-1' })).body;
    const d = (
      await post(`${M}/deletions`, { targets: [m.id], reason: 'rotated', requestedBy: 'ops' })
    ).body;
    const history = (await request(t.server).get(`${M}/items/${m.id}/history`).expect(200)).body;
    expect(history.event).toEqual(m);
    expect(history.recalls).toEqual([
      expect.objectContaining({ recallId: recall.id, query: 'deploy', seq: 1, actor: 'agent-1' }),
    ]);
    expect(history.deletedBy).toEqual(d);
  });

  it('GET events pages the log from a seq', async () => {
    for (const content of ['a', 'b', 'c', 'd'])
      await post(`${M}/messages`, { speaker: 'u', content });
    const page = (await request(t.server).get(`${M}/events?fromSeq=1&limit=2`).expect(200)).body;
    expect(page.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
  });

  it('GET events and state stop at the 4 MiB page budget instead of building a huge body', async () => {
    const text = 'y'.repeat(1_500_000);
    for (let i = 0; i < 4; i++) await post(`${M}/documents`, { name: `big-${i}`, text });
    const seqs = (body: unknown) => (body as { seq: number }[]).map((e) => e.seq);
    const get = async (path: string): Promise<unknown> =>
      (await request(t.server).get(path).expect(200)).body;
    expect(seqs(await get(`${M}/events?limit=1000`))).toEqual([0, 1]);
    expect(seqs(await get(`${M}/events?fromSeq=2&limit=1000`))).toEqual([2, 3]);
    const state = (await get(`${M}/state?limit=1000`)) as {
      visibleDocuments: unknown;
      page: { next: { visibleDocuments: number | null } };
      totals: { visibleDocuments: number };
    };
    expect(seqs(state.visibleDocuments)).toEqual([0, 1]);
    expect(state.page.next.visibleDocuments).toBe(2);
    expect(state.totals.visibleDocuments).toBe(4);
  });

  it('GET /api/memories lists the memories that hold events', async () => {
    await post('/api/memories/alpha/messages', { speaker: 'u', content: 'a' });
    await post('/api/memories/beta.2/messages', { speaker: 'u', content: 'b' });
    const list = (await request(t.server).get('/api/memories').expect(200)).body;
    expect([...list].sort()).toEqual(['alpha', 'beta.2']);
  });

  it('keeps memories apart', async () => {
    await post('/api/memories/alpha/messages', { speaker: 'u', content: 'only in alpha' });
    const beta = (await request(t.server).get('/api/memories/beta/state').expect(200)).body;
    expect(beta.lastSeq).toBeNull();
  });

  it('serves the web page at /', async () => {
    const res = await request(t.server).get('/').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('memledger');
    await request(t.server)
      .get('/app.js')
      .expect(200)
      .expect('content-type', /javascript/);
  });
});
