/* eslint-disable @typescript-eslint/no-unsafe-member-access -- supertest bodies are untyped JSON, asserted field by field */
/** The core's input rules reach the HTTP API: odd memory ids and odd text answer 400. */
import request from 'supertest';
import { openTestApp, type TestApp } from './http-app.js';

describe('HTTP input rules from the core schemas', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['%2E', '%2E%2E'])(
    'answers 400 INVALID_MEMORY_ID for the memory id %s (a path segment)',
    async (id) => {
      const res = await request(t.server)
        .post(`/api/memories/${id}/messages`)
        .send({ speaker: 'bob', content: 'hi' })
        .expect(400);
      expect(res.body.code).toBe('INVALID_MEMORY_ID');
      expect(res.body.issues).toEqual([{ path: 'memoryId', message: 'must not be "." or ".."' }]);
    },
  );

  it('answers 400 naming the speaker when it is only NUL characters', async () => {
    const res = await request(t.server)
      .post('/api/memories/default/messages')
      .send({ speaker: '\u0000\u0000', content: 'hi' })
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.issues).toEqual([
      {
        path: 'speaker',
        message:
          'must contain at least one character that is neither whitespace nor a control character',
      },
    ]);
  });

  it('answers 400 naming the field that holds a lone surrogate', async () => {
    const res = await request(t.server)
      .post('/api/memories/default/documents')
      .set('Content-Type', 'application/json')
      .send('{"name":"a","text":"half \\ud83d of a pair"}')
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.issues).toEqual([
      { path: 'text', message: 'must be valid Unicode text (no lone surrogate U+D800 to U+DFFF)' },
    ]);
  });
});
