/**
 * `memledger search` and `memledger recall` through the binary, by mode, with the embedder the
 * `MEMLEDGER_EMBEDDINGS_*` variables name: an OpenAI-compatible server on loopback.
 */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { buildOnce, runCli, tempWorkspace, writeJsonl, idOf, type CliRun } from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
const { db, dir } = workspace;
let embeddings: EmbeddingServer;
const withEmbedder = (): NodeJS.ProcessEnv => ({
  MEMLEDGER_EMBEDDINGS_URL: `${embeddings.origin}/v1`,
  MEMLEDGER_EMBEDDINGS_MODEL: 'loopback-embed',
  MEMLEDGER_EMBEDDINGS_DIMENSIONS: '64',
});
const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
  runCli(['--db', db, ...args], env);

beforeAll(async () => {
  buildOnce();
  embeddings = await startEmbeddingServer(64);
  const lines = [
    ['the ponies graze in the paddock', 1],
    ['the deploy key rotates on Fridays', 2],
  ].map(([content, n]) => ({
    kind: 'message',
    id: idOf(n as number),
    timestamp: '2024-03-01T10:00:00Z',
    speaker: 'user',
    content,
  }));
  expect((await cli(['import', writeJsonl(join(dir, 'in.jsonl'), lines)])).code).toBe(0);
});
afterAll(async () => {
  await embeddings.close();
  workspace.cleanup();
});

describe('memledger search and recall', () => {
  // Typos stemming does not mend: words alone find nothing.
  it('search finds by spelling in semantic mode what lexical misses, writing nothing', async () => {
    const lexical = await cli(['search', 'ponnies padocks', '--mode', 'lexical']);
    expect(lexical).toMatchObject({ code: 0, stdout: '' });
    const semantic = await cli(
      ['search', 'ponnies padocks', '--mode', 'semantic', '--limit', '1'],
      withEmbedder(),
    );
    expect(semantic.code).toBe(0);
    expect(semantic.stdout).toMatch(
      new RegExp(
        `^\\d\\.\\d{4}  message ${idOf(1)} seq 0: "user: the ponies graze in the paddock"\\n$`,
      ),
    );
  });

  it('recall appends a Recall recording how it retrieved, and says so', async () => {
    const run = await cli(['recall', 'ponnies padocks', '--limit', '1', '--json'], withEmbedder());
    expect(run.code).toBe(0);
    const { recall, items } = JSON.parse(run.stdout) as {
      recall: { seq: number; source: string; retrieval: unknown; recordedBy: unknown };
      items: { id: string }[];
    };
    expect(recall).toMatchObject({
      seq: 2,
      source: 'cli',
      retrieval: { method: 'hybrid', model: 'loopback-embed', dimensions: 64 },
      // On the store itself the command line vouches for the user who ran it.
      recordedBy: { principal: expect.any(String) as string, via: 'local' },
    });
    expect(items.map((i) => i.id)).toEqual([idOf(1)]);
    const audit = await cli(['audit', idOf(1)]);
    expect(audit.stdout).toContain(
      'retrieved hybrid (loopback-embed, 64 dimensions, exact vectors, RRF k 60)',
    );
  });

  it('refuses semantic mode without an embedder and an unknown mode as usage errors', async () => {
    const none = await cli(['recall', 'pony', '--mode', 'semantic']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Mode semantic needs an embedder');
    const unknown = await cli(['search', 'pony', '--mode', 'vibes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("argument 'vibes' is invalid");
  });
});
