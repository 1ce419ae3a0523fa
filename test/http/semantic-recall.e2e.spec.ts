/**
 * Semantic and hybrid recall over HTTP, end to end: the application configured from the
 * `MEMLEDGER_EMBEDDINGS_*` variables with an OpenAI-compatible embedding server on loopback (a
 * real HTTP server speaking the documented API), answers checked against the documented
 * response schemas.
 */
import request from 'supertest';
import { httpConfigFromEnv } from '../../src/http/index.js';
import { RecallResult, ItemHistory, SearchResults } from '../../src/http/response-schemas.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { openTestApp, type TestApp } from './http-app.js';

const M = '/api/memories/default';
const DIMENSIONS = 64;

describe('semantic recall over HTTP', () => {
  let embeddings: EmbeddingServer;
  let t: TestApp;
  const post = (path: string, body: object) => request(t.server).post(path).send(body);

  beforeEach(async () => {
    embeddings = await startEmbeddingServer(DIMENSIONS);
    const env = {
      MEMLEDGER_EMBEDDINGS_URL: `${embeddings.origin}/v1`,
      MEMLEDGER_EMBEDDINGS_MODEL: 'loopback-embed',
      MEMLEDGER_EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
      MEMLEDGER_EMBEDDINGS_API_KEY: 'sk-loopback',
    };
    const { memory } = httpConfigFromEnv(env);
    t = await openTestApp({ memory: { ...memory, readModels: ':memory:' } });
  });
  afterEach(async () => {
    await t.close();
    await embeddings.close();
  });

  it('recalls hybrid by default and records the model, dimensions, vector search and fusion', async () => {
    const pony = (await post(`${M}/messages`, { speaker: 'user', content: 'the ponies graze' }))
      .body as { id: string };
    await post(`${M}/messages`, { speaker: 'user', content: 'the deploy key rotates' });
    const res = await post(`${M}/recall`, { query: 'pony', limit: 1 }).expect(201);
    const body = RecallResult.parse(res.body);
    expect((res.body as { recall: { retrieval: unknown } }).recall.retrieval).toEqual({
      method: 'hybrid',
      model: 'loopback-embed',
      dimensions: DIMENSIONS,
      fusion: { method: 'rrf', k: 60, weights: { lexical: 1, semantic: 1 } },
      vectors: { quantization: 'none', oversample: null, cells: 0, probes: null },
    });
    expect(body.items.map((i) => i.id)).toEqual([pony.id]);
    expect(body.vectors).toMatchObject({ requested: 'hybrid', state: 'current', behind: 0 });
    expect(embeddings.requests.every((r) => r.headers.authorization === 'Bearer sk-loopback')).toBe(
      true,
    );
    const history = ItemHistory.parse(
      (await request(t.server).get(`${M}/items/${pony.id}/history`).expect(200)).body,
    );
    expect(history.recalls.map((r) => r.retrieval.method)).toEqual(['hybrid']);
  });

  it('searches by mode and refuses an unknown mode with 400 naming the field', async () => {
    await post(`${M}/messages`, { speaker: 'user', content: 'the ponies graze' });
    const hits = SearchResults.parse(
      (await request(t.server).get(`${M}/search?q=ponnies&mode=semantic`).expect(200)).body,
    );
    expect(hits).toHaveLength(1);
    // Relative to the best hit in every mode, as BM25's scores are.
    expect(hits[0]!.score).toBe(1);
    // A typo stemming does not mend: words alone find nothing.
    const lexical = await request(t.server).get(`${M}/search?q=ponnies&mode=lexical`).expect(200);
    expect(lexical.body).toEqual([]);
    const bad = await post(`${M}/recall`, { query: 'pony', mode: 'vibes' }).expect(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [{ path: 'mode', message: 'must be lexical, semantic or hybrid' }],
    });
  });

  it('answers 503 EMBEDDER_UNAVAILABLE with Retry-After when the provider is down, appending nothing', async () => {
    await post(`${M}/messages`, { speaker: 'user', content: 'the ponies graze' });
    await post(`${M}/recall`, { query: 'pony' }).expect(201);
    embeddings.script({ status: 429, headers: { 'retry-after': '90' } });
    const res = await post(`${M}/recall`, { query: 'pony' }).expect(503);
    expect((res.body as { code: string }).code).toBe('EMBEDDER_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('90');
    const events = await request(t.server).get(`${M}/events`).expect(200);
    expect((events.body as unknown[]).length).toBe(2);
  });
});
