/* eslint-disable @typescript-eslint/no-unsafe-member-access -- supertest bodies are untyped JSON, asserted field by field */
/**
 * A write retried with the same client `id` and no `timestamp` answers the stored event (201,
 * same seq, nothing written twice); a different body under that id is still 409 ID_CONFLICT.
 * On the SQLite store and on the in-memory store.
 */
import request from 'supertest';
import type { HttpConfig } from '../../src/http/index.js';
import { openTestApp, type TestApp } from './http-app.js';

const M = '/api/memories/default';
const ID = '0193a4c2-0000-7000-8000-0000000000aa';
const DELETION_ID = '0193a4c2-0000-7000-8000-0000000000bb';

const stores: [string, HttpConfig][] = [
  ['SQLite', {}],
  ['in-memory', { store: { kind: 'in-memory' } }],
];

describe.each(stores)('HTTP write retries on the %s store', (_name, config) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp(config);
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (path: string, body: object) => request(t.server).post(`${M}/${path}`).send(body);

  it('answers a retried message without timestamp with the stored event, written once', async () => {
    const body = { id: ID, speaker: 'bob', content: 'hello', sessionId: 's1' };
    const first = await post('messages', body).expect(201);
    const retry = await post('messages', body).expect(201);
    expect(retry.body).toEqual(first.body);
    const events = await request(t.server).get(`${M}/events`).expect(200);
    expect((events.body as { id: string }[]).filter((e) => e.id === ID)).toHaveLength(1);
  });

  it('answers a retried deletion without timestamp with the stored deletion', async () => {
    const body = { id: DELETION_ID, targets: [ID], reason: 'asked to forget' };
    const first = await post('deletions', body).expect(201);
    const retry = await post('deletions', body).expect(201);
    expect(retry.body.seq).toBe(first.body.seq);
    expect(retry.body.timestamp).toBe(first.body.timestamp);
  });

  it('still answers 409 ID_CONFLICT when a field the client sent differs', async () => {
    const res = await post('messages', { id: ID, speaker: 'bob', content: 'other' }).expect(409);
    expect(res.body.code).toBe('ID_CONFLICT');
    const kind = await post('documents', { id: ID, name: 'bob', text: 'hello' }).expect(409);
    expect(kind.body.code).toBe('ID_CONFLICT');
  });

  it('still answers 409 ID_CONFLICT when the retry names another timestamp', async () => {
    const res = await post('messages', {
      id: ID,
      speaker: 'bob',
      content: 'hello',
      sessionId: 's1',
      timestamp: '2020-01-01T00:00:00Z',
    }).expect(409);
    expect(res.body.code).toBe('ID_CONFLICT');
  });
});
