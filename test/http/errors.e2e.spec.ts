/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- supertest bodies are untyped JSON, asserted field by field */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { STATUS_OF_CODE } from '../../src/http/index.js';
import { MEMORY_ERROR_CODES } from '../../src/core/index.js';
import { openTestApp, type TestApp } from './http-app.js';

const M = '/api/memories/default';
const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';

/** Every error body is `{ code, message, issues? }` and never carries a stack trace. */
function expectErrorBody(body: Record<string, unknown>, code: string): void {
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).every((k) => ['code', 'message', 'issues'].includes(k))).toBe(true);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

describe('HTTP errors: one filter, one code -> status table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({ bodyLimit: 64 * 1024 });
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (path: string, body: object | string) =>
    request(t.server).post(path).set('Content-Type', 'application/json').send(body);

  it('maps every MemoryError code to a status', () => {
    for (const code of MEMORY_ERROR_CODES) expect(STATUS_OF_CODE[code]).toBeGreaterThanOrEqual(400);
  });

  it('answers 400 VALIDATION_FAILED listing every failing path: message of a body', async () => {
    const res = await post(`${M}/messages`, { speaker: ' ', content: '', seq: 3, extra: 1 }).expect(
      400,
    );
    expectErrorBody(res.body, 'VALIDATION_FAILED');
    const paths = (res.body.issues as { path: string }[]).map((i) => i.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['content', 'speaker']));
    expect(res.body.message).toMatch(/speaker: .*content: |content: .*speaker: /);
    expect(JSON.stringify(res.body.issues)).toMatch(/seq|extra/);
  });

  it('answers 400 for a body that is not an object, and for a missing body', async () => {
    expectErrorBody((await post(`${M}/messages`, '[1,2]').expect(400)).body, 'VALIDATION_FAILED');
    const res = await request(t.server).post(`${M}/documents`).expect(400);
    expectErrorBody(res.body, 'VALIDATION_FAILED');
  });

  it('answers 400 MALFORMED_JSON with a clear message for malformed JSON', async () => {
    const res = await post(`${M}/messages`, '{"speaker": "u", ').expect(400);
    expectErrorBody(res.body, 'MALFORMED_JSON');
    expect(res.body.message).toMatch(/not valid JSON/);
  });

  it('answers 400 naming the query parameter that fails', async () => {
    const res = await request(t.server).get(`${M}/state?upToSeq=abc&limit=0`).expect(400);
    expectErrorBody(res.body, 'VALIDATION_FAILED');
    expect(res.body.issues).toEqual(
      expect.arrayContaining([
        { path: 'upToSeq', message: 'must be an integer' },
        expect.objectContaining({ path: 'limit' }),
      ]),
    );
    const unknown = await request(t.server).get(`${M}/events?from=3`).expect(400);
    expect(unknown.body.message).toMatch(/from/);
    const search = await request(t.server).get(`${M}/search`).expect(400);
    expect(search.body.issues).toEqual([expect.objectContaining({ path: 'q' })]);
  });

  it('answers 400 INVALID_MEMORY_ID for a bad memory id and 400 for an event id that is no UUID', async () => {
    const res = await request(t.server).get('/api/memories/bad!id/state').expect(400);
    expectErrorBody(res.body, 'INVALID_MEMORY_ID');
    expect(res.body.issues).toEqual([expect.objectContaining({ path: 'memoryId' })]);
    const id = await request(t.server).get(`${M}/events/not-a-uuid`).expect(400);
    expect(id.body.issues).toEqual([expect.objectContaining({ path: 'id' })]);
  });

  it('answers 404 EVENT_NOT_FOUND for an unknown id and ROUTE_NOT_FOUND for unknown routes', async () => {
    expectErrorBody(
      (await request(t.server).get(`${M}/events/${UNKNOWN_ID}`).expect(404)).body,
      'EVENT_NOT_FOUND',
    );
    expectErrorBody(
      (await request(t.server).get(`${M}/items/${UNKNOWN_ID}/history`).expect(404)).body,
      'EVENT_NOT_FOUND',
    );
    expectErrorBody(
      (await request(t.server).get('/api/nothing/here').expect(404)).body,
      'ROUTE_NOT_FOUND',
    );
    expectErrorBody(
      (await request(t.server).delete(`${M}/state`).expect(404)).body,
      'ROUTE_NOT_FOUND',
    );
    expectErrorBody(
      (await request(t.server).get('/no-such-page').expect(404)).body,
      'ROUTE_NOT_FOUND',
    );
  });

  it('answers 409 when a request contradicts the log', async () => {
    const m = (await post('/api/memories/c409/messages', { speaker: 'u', content: 'x' })).body;
    const { recall } = (await post('/api/memories/c409/recall', { query: 'x' })).body;
    await post('/api/memories/c409/deletions', { targets: [m.id], reason: 'r' }).expect(201);
    const again = await post('/api/memories/c409/deletions', {
      targets: [m.id],
      reason: 'r',
    }).expect(409);
    expectErrorBody(again.body, 'ALREADY_DELETED');
    expect(again.body.message).toContain(m.id);
    expectErrorBody(
      (
        await post('/api/memories/c409/deletions', { targets: [UNKNOWN_ID], reason: 'r' }).expect(
          409,
        )
      ).body,
      'DELETION_TARGET_UNKNOWN',
    );
    expectErrorBody(
      (
        await post('/api/memories/c409/deletions', { targets: [recall.id], reason: 'r' }).expect(
          409,
        )
      ).body,
      'DELETION_TARGET_NOT_CONTENT',
    );
    expectErrorBody(
      (await post('/api/memories/c409/recalls', { query: 'q', recalled: [m.id] }).expect(409)).body,
      'RECALL_TARGET_DELETED',
    );
    expectErrorBody(
      (await post('/api/memories/c409/recalls', { query: 'q', recalled: [UNKNOWN_ID] }).expect(409))
        .body,
      'RECALL_TARGET_UNKNOWN',
    );
    expectErrorBody(
      (
        await post('/api/memories/c409/messages', {
          id: m.id,
          speaker: 'u',
          content: 'other',
        }).expect(409)
      ).body,
      'ID_CONFLICT',
    );
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over the limit', async () => {
    const res = await post(`${M}/documents`, { name: 'big', text: 'x'.repeat(70 * 1024) }).expect(
      413,
    );
    expectErrorBody(res.body, 'PAYLOAD_TOO_LARGE');
  });
});

describe('HTTP errors of the store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-http-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 503 STORE_CLOSED when the store is closed', async () => {
    const store = openSqliteStore({ path: join(dir, 'closed.db') });
    const t = await openTestApp({ store: { kind: 'existing', store } });
    try {
      await request(t.server).get('/api/memories/m/state').expect(200);
      await store.close();
      expectErrorBody(
        (await request(t.server).get('/api/memories/m/state').expect(503)).body,
        'STORE_CLOSED',
      );
      const write = await request(t.server)
        .post('/api/memories/m/messages')
        .send({ speaker: 'u', content: 'x' })
        .expect(503);
      expectErrorBody(write.body, 'STORE_CLOSED');
      expectErrorBody(
        (await request(t.server).get('/api/memories').expect(503)).body,
        'STORE_CLOSED',
      );
      await request(t.server).get('/api/memories/m/events/stream').expect(503);
      await request(t.server).get('/api/memories/m/export').expect(503);
    } finally {
      await t.close();
    }
  });

  it('answers 503 for a memory first opened after its store closed', async () => {
    const store = openInMemoryStore();
    const t = await openTestApp({ store: { kind: 'existing', store } });
    try {
      await store.close();
      expectErrorBody(
        (await request(t.server).get('/api/memories/fresh/state').expect(503)).body,
        'STORE_CLOSED',
      );
    } finally {
      await t.close();
    }
  });

  it('answers 500 without details when the store fails unexpectedly', async () => {
    const inner = openInMemoryStore();
    const failing: MemoryStore = {
      description: 'failing store',
      log: (memoryId) => ({
        ...inner.log(memoryId),
        lastSeq: () => Promise.reject(new Error('disk on fire at /secret/path')),
      }),
      memoryIds: () => Promise.reject(new Error('disk on fire at /secret/path')),
      close: () => inner.close(),
    };
    const t = await openTestApp({ store: { kind: 'existing', store: failing } });
    try {
      const res = await request(t.server).get('/api/memories').expect(500);
      expectErrorBody(res.body, 'INTERNAL_ERROR');
      expect(JSON.stringify(res.body)).not.toContain('secret');
    } finally {
      await t.close();
    }
  });

  it('answers 413 for a body over the default 5 MiB limit', async () => {
    const t = await openTestApp();
    try {
      const res = await request(t.server)
        .post(`${M}/documents`)
        .send({ name: 'big', text: 'x'.repeat(5 * 1024 * 1024 + 10) })
        .expect(413);
      expectErrorBody(res.body, 'PAYLOAD_TOO_LARGE');
    } finally {
      await t.close();
    }
  });
});
