/**
 * Compressed request bodies: gzip, deflate and br are decoded; a body that does not decode is
 * 400 MALFORMED_BODY, an encoding the server does not know is 415 UNSUPPORTED_ENCODING.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { RunningServer } from '../../src/http/index.js';
import { startTestServer } from './http-app.js';

const MESSAGES = '/api/memories/default/messages';
const BODY = JSON.stringify({ speaker: 'bob', content: 'compressed hello' });

describe('HTTP request body encodings', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });
  /** POSTs the bytes as they are (supertest would serialize a Buffer as JSON). */
  const post = async (encoding: string, body: Uint8Array | string) => {
    const res = await fetch(`${server.url}${MESSAGES}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it.each([
    ['gzip', gzipSync(BODY)],
    ['deflate', deflateSync(BODY)],
    ['br', brotliCompressSync(BODY)],
    ['identity', Buffer.from(BODY)],
  ])('records a message whose body is %s-encoded', async (encoding, body) => {
    const res = await post(encoding, body);
    expect(res.status).toBe(201);
    expect(res.body.content).toBe('compressed hello');
  });

  it.each(['gzip', 'deflate', 'br'])(
    'answers 400 MALFORMED_BODY when a %s body is not actually compressed',
    async (encoding) => {
      const res = await post(encoding, BODY);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 'MALFORMED_BODY',
        message: `The request body is not valid ${encoding} data, as its Content-Encoding says.`,
      });
    },
  );

  it('answers 415 UNSUPPORTED_ENCODING for an encoding the server does not decode', async () => {
    const res = await post('compress', BODY);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      code: 'UNSUPPORTED_ENCODING',
      message:
        'The request body is encoded as "compress"; send it as identity, gzip, deflate or br.',
    });
  });
});
