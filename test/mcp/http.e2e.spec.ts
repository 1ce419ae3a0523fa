/** MCP over Streamable HTTP at `/mcp` on the real application, driven by the SDK's own Client. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HttpConfig } from '../../src/http/index.js';
import { startTestServer } from '../http/http-app.js';
import { call, describeMcpTools, headOf, type McpConnection } from './mcp-tools.suite.js';

const TOKEN = 'mcp-test-token';

/** Starts the application and connects a client to its `/mcp`, with `token` when given. */
async function connectHttp(
  config: HttpConfig = {},
  token?: string,
): Promise<McpConnection & { readonly url: string }> {
  // Sealed with a key store, as `npm start` runs, so `forget` can erase.
  const server = await startTestServer(config, { sealed: true });
  const client = new Client({ name: 'memledger-test', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }),
    );
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    client,
    url: server.url,
    dbPath: server.dbPath,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describeMcpTools('Streamable HTTP (/mcp)', () => connectHttp());

describe('/mcp on the application', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  };
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
    });

  it('requires the API token when MEMLEDGER_API_TOKEN is configured (401 without it)', async () => {
    const server = await startTestServer({ apiToken: TOKEN });
    try {
      const without = await post(server.url);
      expect(without.status).toBe(401);
      expect(await without.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      const wrong = await post(server.url, { Authorization: 'Bearer wrong' });
      expect(wrong.status).toBe(401);
      // Every body read to its end: an unread one keeps its keep-alive socket, and with it the
      // test worker, alive after the server closed.
      await wrong.arrayBuffer();
      const client = new Client({ name: 'memledger-test', version: '1.0.0' });
      await expect(
        client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))),
      ).rejects.toThrow();
      expect(await headOf(server.dbPath, 'default')).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('serves the tools to a client that sends the token', async () => {
    const mcp = await connectHttp({ apiToken: TOKEN }, TOKEN);
    try {
      const result = await call(mcp.client, 'remember', { speaker: 'user', content: 'Hi.' });
      expect(result.isError).toBeFalsy();
      expect(await headOf(mcp.dbPath, 'default')).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it('answers 405 to GET and DELETE: the endpoint is stateless', async () => {
    const server = await startTestServer();
    try {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(`${server.url}/mcp`, { method });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        await response.arrayBuffer();
      }
    } finally {
      await server.close();
    }
  });
});
