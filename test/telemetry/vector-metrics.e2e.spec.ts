/**
 * `GET /metrics` of an application with an embedder (an OpenAI-compatible server on loopback):
 * each vector index version reports the content it has not embedded yet and the memories it has
 * caught up, labelled with its model, dimensions, quantization and whether recalls use it.
 */
import request from 'supertest';
import { httpConfigFromEnv } from '../../src/http/index.js';
import { startTestServer } from '../http/http-app.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { parsePrometheusText, sampleValue, type Sample } from './prometheus-text.js';

const DIMENSIONS = 32;
const VERSION = {
  memledger_vectors_model: 'loopback-embed',
  memledger_vectors_dimensions: String(DIMENSIONS),
  memledger_vectors_quantization: 'none',
  memledger_vectors_current: 'true',
};

describe('GET /metrics with an embedder', () => {
  let embeddings: EmbeddingServer;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    embeddings = await startEmbeddingServer(DIMENSIONS);
    const { memory } = httpConfigFromEnv({
      MEMLEDGER_EMBEDDINGS_URL: `${embeddings.origin}/v1`,
      MEMLEDGER_EMBEDDINGS_MODEL: 'loopback-embed',
      MEMLEDGER_EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
    });
    server = await startTestServer({ memory: memory! });
  });
  afterAll(async () => {
    await server.close();
    await embeddings.close();
  });

  const scrape = async (): Promise<Sample[]> =>
    parsePrometheusText((await request(server.url).get('/metrics').expect(200)).text);

  it('reports what the vector index has not embedded yet, until the follower catches up', async () => {
    for (const content of ['the ponies graze', 'the deploy key rotates', 'tea at four'])
      await request(server.url)
        .post('/api/memories/vectors/messages')
        .send({ speaker: 'user', content })
        .expect(201);
    let samples = await scrape();
    // The follower embeds after a pause in appends (at most a second): wait for it, bounded.
    for (
      let tries = 0;
      tries < 100 && sampleValue(samples, 'memledger_vectors_behind', VERSION) > 0;
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      samples = await scrape();
    }
    expect(samples.some((s) => s.name === 'memledger_vectors_behind')).toBe(true);
    expect(sampleValue(samples, 'memledger_vectors_behind', VERSION)).toBe(0);
    expect(sampleValue(samples, 'memledger_vectors_memories', VERSION)).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'memledger_vectors_memories_ready', VERSION)).toBe(
      sampleValue(samples, 'memledger_vectors_memories', VERSION),
    );
    expect(embeddings.requests.length).toBeGreaterThan(0);
  });
});
