/**
 * Server timeouts: a request whose headers or body never arrive answers 408 REQUEST_TIMEOUT as
 * JSON instead of holding its connection; the timeouts come from HttpConfig or the environment.
 */
import { httpConfigFromEnv, type RunningServer } from '../../src/http/index.js';
import { rawExchange, startTestServer } from './http-app.js';

describe('HTTP request timeouts', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 408 REQUEST_TIMEOUT when a declared body never arrives', async () => {
    const res = await rawExchange(
      server.url,
      'POST /api/memories/default/messages HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"speaker":',
    );
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect((JSON.parse(res.body) as { code: string }).code).toBe('REQUEST_TIMEOUT');
  });

  it('answers 408 REQUEST_TIMEOUT when the headers never end', async () => {
    const res = await rawExchange(server.url, 'GET /api/memories HTTP/1.1\r\nHost: x\r\n');
    expect(res.status).toBe(408);
    expect((JSON.parse(res.body) as { code: string }).code).toBe('REQUEST_TIMEOUT');
  });
});

describe('HTTP idle timeout', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ idleTimeoutMs: 300 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 408 REQUEST_TIMEOUT when a request body stalls past the idle timeout', async () => {
    const res = await rawExchange(
      server.url,
      'POST /api/memories/default/messages HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n',
    );
    expect(res.status).toBe(408);
    expect((JSON.parse(res.body) as { code: string }).code).toBe('REQUEST_TIMEOUT');
  });
});

describe('HTTP keep-alive after an answer', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ idleTimeoutMs: 300 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('closes an idle keep-alive connection without an unasked-for 408', async () => {
    const res = await rawExchange(server.url, 'GET /api/memories HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('REQUEST_TIMEOUT');
  });
});

describe('timeouts from the environment', () => {
  it('reads MEMLEDGER_HEADERS_TIMEOUT_MS, MEMLEDGER_REQUEST_TIMEOUT_MS and MEMLEDGER_IDLE_TIMEOUT_MS', () => {
    expect(
      httpConfigFromEnv({
        MEMLEDGER_HEADERS_TIMEOUT_MS: '5000',
        MEMLEDGER_REQUEST_TIMEOUT_MS: '20000',
        MEMLEDGER_IDLE_TIMEOUT_MS: '0',
      }),
    ).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 20_000, idleTimeoutMs: 0 });
    expect(() => httpConfigFromEnv({ MEMLEDGER_REQUEST_TIMEOUT_MS: '2s' })).toThrow(
      /Invalid MEMLEDGER_REQUEST_TIMEOUT_MS "2s": must be an integer of 0 or more/,
    );
  });
});
