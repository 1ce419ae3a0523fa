/**
 * Requests Node's HTTP parser refuses answer with the API's JSON error shape, not an empty body.
 */
import type { RunningServer } from '../../src/http/index.js';
import { rawExchange, startTestServer } from './http-app.js';

describe('HTTP requests Node refuses', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 400 MALFORMED_REQUEST as JSON for a space in the path', async () => {
    const res = await rawExchange(
      server.url,
      'GET /api/memories/a b/state HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(res.body) as { code: string; message: string };
    expect(body.code).toBe('MALFORMED_REQUEST');
    expect(body.message).toMatch(/^The request is not valid HTTP\/1\.1 \(HPE_\w+\)/);
  });

  it('answers 400 MALFORMED_REQUEST as JSON for a non-ASCII byte in the path', async () => {
    const res = await rawExchange(
      server.url,
      Buffer.concat([
        Buffer.from('GET /api/memories/'),
        Buffer.from([0xc3, 0xa9]),
        Buffer.from('/state HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
    );
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as { code: string }).code).toBe('MALFORMED_REQUEST');
  });

  it('answers 431 HEADERS_TOO_LARGE as JSON for headers over 16 KiB', async () => {
    const res = await rawExchange(
      server.url,
      `GET /api/memories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({
      code: 'HEADERS_TOO_LARGE',
      message: 'The request headers are larger than the server accepts (16 KiB in all).',
    });
  });
});
