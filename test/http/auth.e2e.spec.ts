/* eslint-disable @typescript-eslint/no-unsafe-assignment -- supertest bodies are untyped JSON, asserted field by field */
import request from 'supertest';
import { tokensMatch } from '../../src/access/index.js';
import { openSse, openTestApp, startTestServer, type TestApp } from './http-app.js';

const TOKEN = 's3cret-token-for-tests';
const M = '/api/memories/default';

describe('API token on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({ apiToken: TOKEN });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 401 UNAUTHORIZED without a token, with a wrong token, and on unknown /api routes', async () => {
    const none = await request(t.server).get(`${M}/state`).expect(401);
    expect(none.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(/Bearer/) });
    expect(none.headers['www-authenticate']).toBe('Bearer');
    await request(t.server).get(`${M}/state`).set('Authorization', 'Bearer nope').expect(401);
    await request(t.server).get(`${M}/state`).set('Authorization', `Basic ${TOKEN}`).expect(401);
    await request(t.server).post(`${M}/messages`).send({ speaker: 'u', content: 'x' }).expect(401);
    await request(t.server).get('/api/memories').expect(401);
    await request(t.server).get('/api/unknown').expect(401);
  });

  it('accepts the bearer token on every route', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    await request(t.server)
      .post(`${M}/messages`)
      .set(auth)
      .send({ speaker: 'u', content: 'x' })
      .expect(201);
    await request(t.server).get(`${M}/state`).set(auth).expect(200);
    await request(t.server).get('/api/memories').set(auth).expect(200);
    await request(t.server).get('/api/unknown').set(auth).expect(404);
  });

  it('accepts ?access_token= on the stream route only', async () => {
    await request(t.server).get(`${M}/state?access_token=${TOKEN}`).expect(401);
    await request(t.server).get(`${M}/export?access_token=${TOKEN}`).expect(401);
  });

  it('still serves the web page and the API docs without a token', async () => {
    await request(t.server).get('/').expect(200);
    await request(t.server).get('/api/docs-json').expect(200);
  });
});

describe('API token on, event stream', () => {
  it('opens the stream with ?access_token= and refuses it without', async () => {
    const s = await startTestServer({ apiToken: TOKEN });
    try {
      const refused = await openSse(`${s.url}${M}/events/stream`);
      expect(refused.response.statusCode).toBe(401);
      refused.close();
      await request(s.url)
        .post(`${M}/messages`)
        .set('Authorization', `Bearer ${TOKEN}`)
        .send({ speaker: 'u', content: 'x' })
        .expect(201);
      const sse = await openSse(`${s.url}${M}/events/stream?access_token=${TOKEN}`);
      expect(sse.response.statusCode).toBe(200);
      expect((await sse.waitFor(1))[0]!.id).toBe('0');
      sse.close();
    } finally {
      await s.close();
    }
  });
});

describe('API token off', () => {
  it('needs no Authorization header', async () => {
    const t = await openTestApp();
    try {
      await request(t.server).get(`${M}/state`).expect(200);
      await request(t.server).get(`${M}/state`).set('Authorization', 'Bearer anything').expect(200);
    } finally {
      await t.close();
    }
  });
});

describe('tokensMatch', () => {
  it('compares tokens of any length', () => {
    expect(tokensMatch(TOKEN, TOKEN)).toBe(true);
    expect(tokensMatch('short', TOKEN)).toBe(false);
    expect(tokensMatch(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(tokensMatch('', TOKEN)).toBe(false);
  });
});
