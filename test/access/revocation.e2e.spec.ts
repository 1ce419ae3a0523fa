/**
 * A revocation made by another process (the command line, on the server's SQLite file) reaches
 * the server within a second: the key's open event stream ends with an `UNAUTHORIZED` failure,
 * its MCP session's next request is refused, and `memledger mcp --key` stops.
 */
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { openSqliteGrantStore } from '../../src/access/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { openSse, startTestServer } from '../http/http-app.js';
import { untilAccepted } from './isolation.fixture.js';

jest.setTimeout(60_000);

const root = join(import.meta.dirname, '..', '..');
const by = { principal: 'test', via: 'local' } as const;
/** The requirement: every instance refuses a revoked key within a second. */
const REVOCATION_DEADLINE_MS = 1000;

/** Resolves with the time `emitter` emitted `event`. */
function whenEmitted(emitter: NodeJS.EventEmitter, event: string): Promise<number> {
  return new Promise((resolve) => emitter.once(event, () => resolve(performance.now())));
}

describe('revoking a key', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(() => buildOnce());
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  const grant = async (principal: string) => {
    const grants = openSqliteGrantStore({ path: server.dbPath });
    try {
      const created = await grants.create(
        { principal, memories: ['r'], rights: ['read', 'write'] },
        by,
      );
      await untilAccepted(server.url, created.secret, created.key.id);
      return created;
    } finally {
      await grants.close();
    }
  };
  const post = (secret: string, content: string) =>
    fetch(`${server.url}/api/memories/r/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
      body: JSON.stringify({ speaker: 'u', content }),
    });

  it('from another process ends its open event stream within a second, saying why', async () => {
    const { key, secret } = await grant('streamer');
    expect((await post(secret, 'before')).status).toBe(201);
    const sse = await openSse(`${server.url}/api/memories/r/events/stream?access_token=${secret}`);
    await sse.waitFor(1);
    const ended = whenEmitted(sse.response, 'end');
    const revoke = await runCli(['--db', server.dbPath, 'access', 'revoke', key.id]);
    const revokedAt = performance.now();
    expect(revoke).toMatchObject({
      code: 0,
      stdout: `revoked access key ${key.id} (principal streamer)\n`,
    });
    expect((await ended) - revokedAt).toBeLessThan(REVOCATION_DEADLINE_MS);
    expect(sse.messages.at(-1)).toEqual({
      event: 'failure',
      data: JSON.stringify({ code: 'UNAUTHORIZED', message: 'The access key was revoked.' }),
    });
    expect((await post(secret, 'after')).status).toBe(401);
    const reopened = await fetch(
      `${server.url}/api/memories/r/events/stream?access_token=${secret}`,
    );
    expect(reopened.status).toBe(401);
    await reopened.body?.cancel();
  });

  it("refuses the next request of the key's MCP session", async () => {
    const { key, secret } = await grant('mcp-agent');
    const client = new Client({ name: 'revocation', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    try {
      const ok = await client.callTool({
        name: 'remember',
        arguments: { memoryId: 'r', speaker: 'u', content: 'hi' },
      });
      expect(ok.isError).toBeFalsy();
      const grants = openSqliteGrantStore({ path: server.dbPath });
      await grants.revoke(key.id, by);
      await grants.close();
      await new Promise((resolve) => setTimeout(resolve, REVOCATION_DEADLINE_MS));
      await expect(
        client.callTool({
          name: 'remember',
          arguments: { memoryId: 'r', speaker: 'u', content: 'again' },
        }),
      ).rejects.toThrow(/UNAUTHORIZED/);
    } finally {
      await client.close();
    }
  });

  it('stops memledger mcp --key, which says why on stderr', async () => {
    const { key, secret } = await grant('stdio-agent');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(root, 'test', 'mcp', 'memledger-cli.ts'),
        '--db',
        server.dbPath,
        '--key',
        secret,
        'mcp',
      ],
      cwd: root,
      env: process.env as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'revocation', version: '1.0.0' });
    const closed = new Promise<number>(
      (resolve) => (client.onclose = () => resolve(performance.now())),
    );
    await client.connect(transport);
    const ok = await client.callTool({
      name: 'remember',
      arguments: { memoryId: 'r', speaker: 'u', content: 'hi' },
    });
    expect(ok.structuredContent).toMatchObject({
      event: { recordedBy: { principal: 'stdio-agent', via: `key:${key.id}` } },
    });
    const grants = openSqliteGrantStore({ path: server.dbPath });
    await grants.revoke(key.id, by);
    const revokedAt = performance.now();
    await grants.close();
    expect((await closed) - revokedAt).toBeLessThan(REVOCATION_DEADLINE_MS);
    expect(stderr).toContain('memledger mcp: the access key was revoked; stopping');
    expect(stderr).not.toContain(secret);
  });
});
