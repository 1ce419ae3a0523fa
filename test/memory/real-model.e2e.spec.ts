/**
 * Semantic recall with a real embedding model, where one is reachable: set
 * `MEMLEDGER_TEST_EMBEDDINGS_URL` (an OpenAI-compatible base URL, or Ollama's with
 * `MEMLEDGER_TEST_EMBEDDINGS_PROVIDER=ollama`), `MEMLEDGER_TEST_EMBEDDINGS_MODEL` and
 * `MEMLEDGER_TEST_EMBEDDINGS_DIMENSIONS` (and `MEMLEDGER_TEST_EMBEDDINGS_API_KEY` if needed).
 * Only a model knows that a daughter is a kid: the hashing test embedder never could.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddingsConfigFromEnv } from '../../src/embeddings/index.js';
import { openMemledger } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const env = process.env;
const url = env.MEMLEDGER_TEST_EMBEDDINGS_URL?.trim();
const skipReason = url
  ? undefined
  : 'MEMLEDGER_TEST_EMBEDDINGS_URL is not set (no model is reachable here)';
if (skipReason) console.log(`semantic recall with a real model skipped: ${skipReason}.`);

describe('semantic recall with a real embedding model', () => {
  (skipReason ? it.skip : it)(
    `finds "Sophie is my kid" for "who is my daughter?"${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
    async () => {
      const embedder = embeddingsConfigFromEnv({
        MEMLEDGER_EMBEDDINGS_URL: url,
        MEMLEDGER_EMBEDDINGS_PROVIDER: env.MEMLEDGER_TEST_EMBEDDINGS_PROVIDER,
        MEMLEDGER_EMBEDDINGS_MODEL: env.MEMLEDGER_TEST_EMBEDDINGS_MODEL,
        MEMLEDGER_EMBEDDINGS_DIMENSIONS: env.MEMLEDGER_TEST_EMBEDDINGS_DIMENSIONS,
        MEMLEDGER_EMBEDDINGS_API_KEY: env.MEMLEDGER_TEST_EMBEDDINGS_API_KEY,
      })!;
      const dir = mkdtempSync(join(tmpdir(), 'memledger-real-model-'));
      const ledger = openMemledger({
        store: openSqliteStore({ path: join(dir, 'm.db') }),
        embeddings: { embedder, follow: false },
      });
      try {
        const memory = await ledger.memory();
        const kid = await memory.recordMessage({ speaker: 'user', content: 'Sophie is my kid.' });
        await memory.recordMessage({
          speaker: 'user',
          content: 'The deploy key rotates on Fridays.',
        });
        await memory.recordMessage({
          speaker: 'user',
          content: 'Lunch is at noon in the canteen.',
        });
        const lexical = await memory.recall({ query: 'who is my daughter?', mode: 'lexical' });
        expect(lexical.items).toEqual([]);
        const { recall, items } = await memory.recall({
          query: 'who is my daughter?',
          mode: 'semantic',
          limit: 1,
        });
        expect(items.map((i) => i.id)).toEqual([kid.id]);
        expect(recall.retrieval).toMatchObject({ method: 'semantic', model: embedder.model });
      } finally {
        await ledger.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
