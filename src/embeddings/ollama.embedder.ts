/**
 * Ollama's native API: `POST {url}/api/embed` with `{ model, input: [...] }`, answering
 * `{ embeddings: [[...], ...] }` in the order of the input.
 */
import { batchedEmbedder } from './batched-embedder.js';
import type { Embedder } from './embedder.port.js';
import { endpoint } from './endpoint.js';
import { postJson, type HttpOptions } from './http-embedding.js';

/** Options of {@link ollamaEmbedder}. */
export interface OllamaEmbedderOptions extends HttpOptions {
  /** Ollama's base URL. @defaultValue 'http://127.0.0.1:11434' */
  readonly url?: string | undefined;
  /** The model, e.g. `nomic-embed-text` or `all-minilm`. */
  readonly model: string;
  /** The length of the model's vectors. */
  readonly dimensions: number;
  /** Sent as `Authorization: Bearer <apiKey>` (an Ollama behind a proxy). @defaultValue none */
  readonly apiKey?: string | undefined;
  /** Texts per request. @defaultValue 64 */
  readonly batchSize?: number | undefined;
  /** Send `dimensions`, for models that can shorten their vectors. @defaultValue false */
  readonly requestDimensions?: boolean;
}

/** An embedder over Ollama's `POST /api/embed`. */
export function ollamaEmbedder(options: OllamaEmbedderOptions): Embedder {
  const url = endpoint(options.url ?? 'http://127.0.0.1:11434', '/api/embed', 'url');
  const headers: Record<string, string> = options.apiKey
    ? { authorization: `Bearer ${options.apiKey}` }
    : {};
  return batchedEmbedder({
    provider: 'ollama',
    model: options.model,
    dimensions: options.dimensions,
    batchSize: options.batchSize,
    async embedBatch(texts, { signal }) {
      const body = {
        model: options.model,
        input: texts,
        ...(options.requestDimensions ? { dimensions: options.dimensions } : {}),
      };
      const json = await postJson({ ...options, provider: 'ollama', url, body, headers, signal });
      return (json as { embeddings?: unknown } | null)?.embeddings;
    },
  });
}
