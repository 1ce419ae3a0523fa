/**
 * The isolation matrix over MCP: every tool, for four keys (three over stdio) on four memories,
 * over Streamable HTTP (the application's `/mcp`, each request bound to its key) and over stdio
 * (`memledger mcp --key`). An allowed call works and records its principal; every other one is
 * a tool error `FORBIDDEN` that holds no content or id and writes nothing.
 */
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import type { Right } from '../../src/access/index.js';
import { ERROR_META_KEY } from '../../src/mcp/index.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { HASHING_MODEL } from '../support/hashing-embedder.js';
import {
  expectNothingRevealed,
  KEY_SPECS,
  MEMORIES,
  missingRight,
  startMatrix,
  WITH_EMBEDDER,
  type KeyName,
  type Matrix,
} from './isolation.fixture.js';

jest.setTimeout(120_000);

const root = join(import.meta.dirname, '..', '..');

interface ToolCase {
  readonly tool: string;
  readonly rights: readonly Right[];
  args(memoryId: string, m: Matrix): Record<string, unknown>;
}

const TOOLS: readonly ToolCase[] = [
  { tool: 'remember', rights: ['write'], args: () => ({ speaker: 'agent', content: 'noted' }) },
  { tool: 'add_document', rights: ['write'], args: () => ({ name: 'n.md', text: 'text' }) },
  { tool: 'recall', rights: ['recall'], args: () => ({ query: 'note' }) },
  { tool: 'recall', rights: ['recall'], args: () => ({ query: 'note', mode: 'semantic' }) },
  { tool: 'recall', rights: ['recall'], args: () => ({ query: 'note', mode: 'lexical' }) },
  {
    tool: 'forget',
    rights: ['delete'],
    args: (id, m) => ({ targets: [m.seeded[id]!.visible.pop()], reason: 'mcp forget' }),
  },
  {
    tool: 'forget',
    rights: ['delete', 'erase'],
    args: (id, m) => ({ targets: [m.seeded[id]!.visible.pop()], reason: 'mcp erase', erase: true }),
  },
  { tool: 'search', rights: ['read'], args: () => ({ query: 'note' }) },
  { tool: 'search', rights: ['read'], args: () => ({ query: 'note', mode: 'semantic' }) },
  { tool: 'state_at', rights: ['read'], args: () => ({ limit: 5 }) },
  { tool: 'history', rights: ['read'], args: (id, m) => ({ id: m.seeded[id]!.ids[0] }) },
  { tool: 'receipt', rights: ['read'], args: () => ({ seq: 1 }) },
];

/** Runs every tool of the matrix for one key through `client`. */
async function runMatrix(m: Matrix, keyName: KeyName, client: Client): Promise<number> {
  const key = m.keys[keyName];
  let checked = 0;
  for (const memoryId of MEMORIES) {
    for (const tool of TOOLS) {
      const missing = missingRight(key, memoryId, tool.rights);
      const before = await m.heads();
      const result = (await client.callTool({
        name: tool.tool,
        arguments: { ...tool.args(memoryId, m), memoryId },
      })) as CallToolResult;
      const label = `${keyName} ${tool.tool}(${tool.rights.join('+')}) on ${memoryId}`;
      if (missing === undefined) {
        expect([label, result.isError ?? false]).toEqual([label, false]);
        const written = JSON.stringify(result.structuredContent);
        if (tool.rights.some((r) => r !== 'read')) {
          expect(written).toContain(JSON.stringify(key.principal.recordedBy));
        }
      } else {
        expect([label, result.isError]).toEqual([label, true]);
        const meta = result._meta?.[ERROR_META_KEY] as { code: string; message: string };
        expect(meta.code).toBe('FORBIDDEN');
        expect(meta.message).toBe(
          `Principal ${KEY_SPECS[keyName].principal} lacks the right "${missing}" on memory ${memoryId}.`,
        );
        expectNothingRevealed(JSON.stringify(result), m.secrets());
        expect(await m.heads()).toEqual(before);
      }
      checked += 1;
    }
  }
  return checked;
}

describe('isolation matrix over MCP', () => {
  let m: Matrix;
  // memledger mcp embeds through a provider named by the environment: the same vectors.
  let embeddings: EmbeddingServer;
  beforeAll(async () => {
    m = await startMatrix(16, WITH_EMBEDDER);
    embeddings = await startEmbeddingServer(64);
  }, 60_000);
  afterAll(async () => {
    await embeddings?.close();
    await m?.close();
  });

  it.each(Object.keys(KEY_SPECS) as KeyName[])(
    'over Streamable HTTP with the %s key',
    async (keyName) => {
      const client = new Client({ name: 'isolation', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${m.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${m.keys[keyName].secret}` } },
        }),
      );
      try {
        expect(await runMatrix(m, keyName, client)).toBe(MEMORIES.length * TOOLS.length);
      } finally {
        await client.close();
      }
    },
  );

  it.each(['reader', 'agent', 'janitor'] as KeyName[])(
    'over stdio (memledger mcp --key) with the %s key',
    async (keyName) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          '--import',
          'tsx',
          join(root, 'test', 'mcp', 'memledger-cli.ts'),
          '--db',
          m.dbPath,
          'mcp',
        ],
        cwd: root,
        env: {
          ...(process.env as Record<string, string>),
          MEMLEDGER_KEY: m.keys[keyName].secret,
          MEMLEDGER_EMBEDDINGS_URL: `${embeddings.origin}/v1`,
          MEMLEDGER_EMBEDDINGS_MODEL: HASHING_MODEL,
          MEMLEDGER_EMBEDDINGS_DIMENSIONS: '64',
        },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'isolation', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(await runMatrix(m, keyName, client)).toBe(MEMORIES.length * TOOLS.length);
      } finally {
        await client.close();
      }
    },
  );
});
