/**
 * The HTTP embedding providers against a real server on loopback speaking each documented API
 * (test/support/embedding-server.ts): request and response shapes, batching, 429 with
 * Retry-After, 5xx, a server that never answers, vectors of the wrong length.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  ollamaEmbedder,
  openAiEmbedder,
  type Embedder,
  type HttpOptions,
} from '../../src/embeddings/index.js';
import { isMemoryError, type MemoryError } from '../../src/core/index.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { hashingVector } from '../support/hashing-embedder.js';

const DIMENSIONS = 16;
const API_KEY = 'sk-test-4f9a1c0e-never-in-an-error';

interface ProviderCase {
  readonly name: string;
  readonly path: string;
  make(origin: string, options?: HttpOptions & { batchSize?: number }): Embedder;
}

const providers: ProviderCase[] = [
  {
    name: 'openai',
    path: '/v1/embeddings',
    make: (origin, options = {}) =>
      openAiEmbedder({
        url: `${origin}/v1`,
        model: 'text-embedding-test',
        dimensions: DIMENSIONS,
        apiKey: API_KEY,
        retryDelayMs: 10,
        ...options,
      }),
  },
  {
    name: 'ollama',
    path: '/api/embed',
    make: (origin, options = {}) =>
      ollamaEmbedder({
        url: origin,
        model: 'all-minilm',
        dimensions: DIMENSIONS,
        apiKey: API_KEY,
        retryDelayMs: 10,
        ...options,
      }),
  },
];

async function failure(promise: Promise<unknown>): Promise<MemoryError> {
  try {
    await promise;
  } catch (error) {
    if (isMemoryError(error)) return error;
    throw error;
  }
  throw new Error('expected a MemoryError');
}

describe.each(providers)('$name embedder against a loopback server', (provider) => {
  let server: EmbeddingServer;
  beforeEach(async () => {
    server = await startEmbeddingServer(DIMENSIONS);
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts the documented request and returns one vector per text, in order', async () => {
    const embedder = provider.make(server.origin);
    const vectors = await embedder.embed(['Sophie is my kid', 'the deploy key rotates']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(vectors[0]!)).toEqual(
      Array.from(hashingVector('Sophie is my kid', DIMENSIONS)),
    );
    expect(Array.from(vectors[1]!)).toEqual(
      Array.from(hashingVector('the deploy key rotates', DIMENSIONS)),
    );
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: provider.path });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request!.body.model).toBe(embedder.model);
    expect(request!.body.input).toEqual(['Sophie is my kid', 'the deploy key rotates']);
    if (provider.name === 'openai') expect(request!.body.encoding_format).toBe('float');
    expect(request!.body.dimensions).toBeUndefined();
  });

  it('sends the texts in batches of batchSize and keeps their order', async () => {
    const texts = ['one', 'two', 'three', 'four', 'five'];
    const vectors = await provider.make(server.origin, { batchSize: 2 }).embed(texts);
    expect(server.requests.map((r) => r.body.input)).toEqual([
      ['one', 'two'],
      ['three', 'four'],
      ['five'],
    ]);
    expect(vectors.map((v) => Array.from(v))).toEqual(
      texts.map((text) => Array.from(hashingVector(text, DIMENSIONS))),
    );
  });

  it('waits for Retry-After after a 429, then succeeds', async () => {
    server.script({
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"error":"rate limited"}',
    });
    const vectors = await provider.make(server.origin).embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('fails at once with EMBEDDER_UNAVAILABLE when Retry-After asks for longer than maxRetryDelayMs', async () => {
    server.script({ status: 429, headers: { 'retry-after': '120' } });
    const error = await failure(
      provider.make(server.origin, { maxRetryDelayMs: 5000 }).embed(['x']),
    );
    expect(error.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(error.message).toContain('HTTP 429');
    expect(error.details).toMatchObject({ retryAfterMs: 120_000, attempts: 1, status: 429 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 500 with backoff and gives up with EMBEDDER_UNAVAILABLE after its retries', async () => {
    server.script({ status: 500 }, { status: 502 });
    expect(await provider.make(server.origin).embed(['x'])).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    server.script(...Array.from({ length: 3 }, () => ({ status: 503, body: 'overloaded' })));
    const error = await failure(provider.make(server.origin, { retries: 2 }).embed(['x']));
    expect(error.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(error.message).toContain('HTTP 503: overloaded');
    expect(error.details).toMatchObject({ attempts: 3, status: 503 });
    expect(server.requests).toHaveLength(3);
    expect(error.message).not.toContain(API_KEY);
  });

  it('gives up on a server that never answers after timeoutMs per attempt', async () => {
    server.script('hang', 'hang');
    const error = await failure(
      provider.make(server.origin, { timeoutMs: 200, retries: 1 }).embed(['x']),
    );
    expect(error.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(error.message).toContain('did not answer within 200 ms');
    expect(server.requests).toHaveLength(2);
  });

  it('refuses vectors of another length, naming both numbers, without retrying', async () => {
    server.script({ dimensions: DIMENSIONS + 8 });
    const error = await failure(provider.make(server.origin).embed(['x']));
    expect(error.code).toBe('EMBEDDING_DIMENSIONS_MISMATCH');
    expect(error.message).toContain(
      `${DIMENSIONS + 8} dimensions where ${DIMENSIONS} are configured`,
    );
    expect(error.details).toMatchObject({ expected: DIMENSIONS, actual: DIMENSIONS + 8 });
    expect(server.requests).toHaveLength(1);
  });

  it('fails a refused request (400) at once with EMBEDDER_FAILED quoting the server', async () => {
    server.script({ status: 400, body: '{"error":"model not found"}' });
    const error = await failure(provider.make(server.origin).embed(['x']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('HTTP 400: {"error":"model not found"}');
    expect(server.requests).toHaveLength(1);
  });

  it('fails an answer that is not JSON with EMBEDDER_FAILED', async () => {
    server.script('not-json');
    const error = await failure(provider.make(server.origin).embed(['x']));
    expect(error.code).toBe('EMBEDDER_FAILED');
    expect(error.message).toContain('not JSON');
  });
});

describe('HTTP embedders without a server', () => {
  it('answer EMBEDDER_UNAVAILABLE when nothing listens on the port', async () => {
    const port = await freePort();
    const embedder = openAiEmbedder({
      url: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      dimensions: 4,
      retries: 1,
      retryDelayMs: 5,
    });
    const error = await failure(embedder.embed(['x']));
    expect(error.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(error.message).toContain(`http://127.0.0.1:${port}/v1/embeddings could not be reached`);
  });

  it('send dimensions only when asked (models that shorten their vectors)', async () => {
    const server = await startEmbeddingServer(8);
    try {
      await openAiEmbedder({
        url: `${server.origin}/v1/`,
        model: 'm',
        dimensions: 8,
        requestDimensions: true,
      }).embed(['x']);
      expect(server.requests[0]).toMatchObject({ path: '/v1/embeddings', body: { dimensions: 8 } });
    } finally {
      await server.close();
    }
  });
});

/** A port nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
