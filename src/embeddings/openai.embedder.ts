/**
 * An OpenAI-compatible embedding server: `POST {url}/embeddings` with `{ model, input: [...],
 * encoding_format: 'float' }`, answering `{ data: [{ index, embedding }] }`. OpenAI, vLLM,
 * llama.cpp's server, LM Studio and Ollama's `/v1` all speak it.
 */
import { batchedEmbedder } from './batched-embedder.js';
import type { Embedder } from './embedder.port.js';
import { postJson, type HttpOptions } from './http-embedding.js';
import { endpoint } from './endpoint.js';

/** Options of {@link openAiEmbedder}. */
export interface OpenAiEmbedderOptions extends HttpOptions {
  /** The API's base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  readonly url: string;
  /** The model, e.g. `text-embedding-3-small`. */
  readonly model: string;
  /** The length of the model's vectors. */
  readonly dimensions: number;
  /** Sent as `Authorization: Bearer <apiKey>`. @defaultValue none */
  readonly apiKey?: string | undefined;
  /** Texts per request. @defaultValue 64 */
  readonly batchSize?: number | undefined;
  /**
   * Send `dimensions` in the request, for models that can shorten their vectors (OpenAI's
   * text-embedding-3 family); most servers refuse it. @defaultValue false
   */
  readonly requestDimensions?: boolean;
}

/** An embedder over an OpenAI-compatible `POST /embeddings`. */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = endpoint(options.url, '/embeddings', 'url');
  const headers: Record<string, string> = options.apiKey
    ? { authorization: `Bearer ${options.apiKey}` }
    : {};
  return batchedEmbedder({
    provider: 'openai',
    model: options.model,
    dimensions: options.dimensions,
    batchSize: options.batchSize,
    async embedBatch(texts, { signal }) {
      const body = {
        model: options.model,
        input: texts,
        encoding_format: 'float',
        ...(options.requestDimensions ? { dimensions: options.dimensions } : {}),
      };
      const json = await postJson({
        ...options,
        provider: 'openai',
        url,
        body,
        headers,
        signal,
      });
      return vectorsOf(json);
    },
  });
}

/** The `embedding` of every `data` entry, in `index` order; undefined when the shape is wrong. */
function vectorsOf(json: unknown): unknown {
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const entries = data as { index?: unknown; embedding?: unknown }[];
  const indexed = entries.every((entry) => typeof entry?.index === 'number');
  const ordered = indexed
    ? [...entries].sort((a, b) => (a.index as number) - (b.index as number))
    : entries;
  return ordered.map((entry) => entry?.embedding);
}
