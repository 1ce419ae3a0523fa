/**
 * Secrets never reach a log line, an error body or a trace: with every log level on, JSON logs
 * and the tracing SDK recording, requests carrying valid, revoked, unknown and forbidden keys,
 * a JWT-shaped credential and the API token (in headers, in `?access_token=`, in a body) leave
 * no trace of any of them, nor of their random part without the `mlk_` prefix.
 */
import { newKeySecret, openSqliteGrantStore } from '../../src/access/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { openSse, startTestServer } from '../http/http-app.js';
import { registerTestOtel, type TestOtel } from '../telemetry/otel-sdk.js';
import { untilAccepted } from './isolation.fixture.js';

const TOKEN = 'shared-token-0123456789';
const JWT_LIKE =
  'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW5vdC12YWxpZC1hdC1hbGwtMDEyMzQ1Njc4OQ';

describe('secrets in logs, error bodies and traces', () => {
  let otel: TestOtel;
  const written: string[] = [];
  const restore: (() => void)[] = [];
  beforeAll(() => {
    buildOnce();
    otel = registerTestOtel();
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = (chunk: unknown, ...rest: never[]) => {
        written.push(String(chunk));
        return original(chunk as string, ...rest);
      };
      restore.push(() => (stream.write = original));
    }
  });
  afterAll(async () => {
    for (const undo of restore) undo();
    await otel.shutdown();
  });

  it('finds none of them anywhere', async () => {
    const server = await startTestServer({
      apiToken: TOKEN,
      logger: ['log', 'warn', 'error', 'debug', 'verbose'],
      logFormat: 'json',
    });
    const bodies: string[] = [];
    const grants = openSqliteGrantStore({ path: server.dbPath });
    const by = { principal: 'test', via: 'local' } as const;
    const valid = await grants.create(
      { principal: 'v', memories: ['s'], rights: ['read', 'write'] },
      by,
    );
    const revoked = await grants.create({ principal: 'r', memories: ['*'], rights: ['read'] }, by);
    await grants.revoke(revoked.key.id, by);
    await grants.close();
    await untilAccepted(server.url, valid.secret, valid.key.id);
    const unknown = newKeySecret();
    const secrets = [valid.secret, revoked.secret, unknown, JWT_LIKE, TOKEN];
    try {
      const call = async (path: string, credential?: string, init: RequestInit = {}) => {
        const response = await fetch(`${server.url}${path}`, {
          ...init,
          headers: {
            ...(credential ? { Authorization: `Bearer ${credential}` } : {}),
            ...(init.body ? { 'Content-Type': 'application/json' } : {}),
          },
        });
        bodies.push(await response.text());
        return response.status;
      };
      expect(await call('/api/memories/s/state', valid.secret)).toBe(200);
      expect(await call('/api/memories/other/state', valid.secret)).toBe(403);
      for (const bad of [revoked.secret, unknown, JWT_LIKE, `${TOKEN}x`]) {
        expect(await call('/api/memories/s/state', bad)).toBe(401);
        expect(await call(`/api/memories/s/events/stream?access_token=${bad}`)).toBe(401);
      }
      // A credential in the query string of a route that does not take one, and in a body.
      expect(await call(`/api/memories/s/state?access_token=${valid.secret}`)).toBe(401);
      expect(await call(`/api/memories/s/state?upToSeq=x&key=${valid.secret}`, TOKEN)).toBe(400);
      expect(
        await call('/api/memories/s/messages', valid.secret, {
          method: 'POST',
          body: JSON.stringify({ speaker: 'u', content: 'x', apiKey: valid.secret, token: TOKEN }),
        }),
      ).toBe(400);
      expect(
        await call('/mcp', valid.secret, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      ).toBeLessThan(500);
      const sse = await openSse(
        `${server.url}/api/memories/s/events/stream?access_token=${valid.secret}`,
      );
      sse.close();
      const cli = await runCli(['--server', server.url, '--memory', 's', 'export'], {
        MEMLEDGER_KEY: unknown,
      });
      expect(cli.code).toBe(1);
      bodies.push(cli.stdout, cli.stderr);
    } finally {
      await server.close();
    }
    const spans = otel.spans().map((span) =>
      JSON.stringify({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
      }),
    );
    expect(spans.length).toBeGreaterThan(0);
    expect(written.join('')).toContain('access_token=[redacted]');
    const haystacks = {
      logs: written.join('\n'),
      bodies: bodies.join('\n'),
      traces: spans.join('\n'),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of secrets) {
        expect([where, text.includes(secret)]).toEqual([where, false]);
        expect([where, text.includes(secret.replace(/^mlk_/, ''))]).toEqual([where, false]);
      }
    }
  }, 60_000);
});
