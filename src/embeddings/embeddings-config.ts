/**
 * Which embedder to open, from options or from the environment:
 * `MEMLEDGER_EMBEDDINGS_PROVIDER` (`openai` by default, `ollama`, `local`),
 * `MEMLEDGER_EMBEDDINGS_URL` (the server's base URL), `MEMLEDGER_EMBEDDINGS_MODEL`,
 * `MEMLEDGER_EMBEDDINGS_DIMENSIONS`, `MEMLEDGER_EMBEDDINGS_API_KEY` and, for a local model,
 * `MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD`. A wrong value is refused with the variable's name and
 * the rule it broke.
 */
import { MemoryError } from '../core/index.js';
import { checkDimensions } from './checked-vectors.js';
import type { Embedder } from './embedder.port.js';
import type { HttpOptions } from './http-embedding.js';
import { localEmbedder } from './local.embedder.js';
import { ollamaEmbedder } from './ollama.embedder.js';
import { openAiEmbedder } from './openai.embedder.js';

/** The providers the configuration names. */
export const EMBEDDINGS_PROVIDERS = ['openai', 'ollama', 'local'] as const;
/** A provider the configuration names. */
export type EmbeddingsProvider = (typeof EMBEDDINGS_PROVIDERS)[number];

/** An embedder described by settings (what the environment variables give). */
export interface EmbeddingsConfig extends HttpOptions {
  /** @defaultValue 'openai' */
  readonly provider?: EmbeddingsProvider;
  /** The server's base URL (`openai`: required; `ollama`: defaults to http://127.0.0.1:11434). */
  readonly url?: string | undefined;
  /** The model (a local model's directory for `local`). */
  readonly model: string;
  /** The length of the model's vectors. */
  readonly dimensions: number;
  readonly apiKey?: string | undefined;
  readonly batchSize?: number | undefined;
  /** `local` only: fetch the model from the Hugging Face hub when missing. @defaultValue false */
  readonly allowDownload?: boolean;
}

/** The embedder `config` describes. */
export function openEmbedder(config: EmbeddingsConfig): Embedder {
  switch (config.provider ?? 'openai') {
    case 'openai':
      if (!config.url)
        throw invalid('url', 'must be set for the openai provider (the API base URL)');
      return openAiEmbedder({ ...config, url: config.url });
    case 'ollama':
      return ollamaEmbedder(config);
    case 'local':
      return localEmbedder({
        model: config.model,
        dimensions: config.dimensions,
        allowDownload: config.allowDownload ?? false,
        batchSize: config.batchSize,
      });
  }
}

const ENV = {
  provider: 'MEMLEDGER_EMBEDDINGS_PROVIDER',
  url: 'MEMLEDGER_EMBEDDINGS_URL',
  model: 'MEMLEDGER_EMBEDDINGS_MODEL',
  dimensions: 'MEMLEDGER_EMBEDDINGS_DIMENSIONS',
  apiKey: 'MEMLEDGER_EMBEDDINGS_API_KEY',
  allowDownload: 'MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD',
} as const;

/**
 * The embeddings configuration of the environment, or undefined when none is set (no URL, no
 * provider, no model): recall is then lexical.
 */
export function embeddingsConfigFromEnv(env: NodeJS.ProcessEnv): EmbeddingsConfig | undefined {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const provider = read(ENV.provider)?.toLowerCase();
  const url = read(ENV.url);
  const model = read(ENV.model);
  if (provider === undefined && url === undefined && model === undefined) return undefined;
  if (provider !== undefined && !EMBEDDINGS_PROVIDERS.includes(provider as EmbeddingsProvider))
    throw invalid(ENV.provider, `must be one of ${EMBEDDINGS_PROVIDERS.join(', ')}`, provider);
  const chosen = (provider ?? 'openai') as EmbeddingsProvider;
  if (chosen === 'openai' && url === undefined)
    throw invalid(ENV.url, 'must be set to the API base URL, e.g. http://127.0.0.1:11434/v1');
  if (model === undefined)
    throw invalid(
      ENV.model,
      chosen === 'local'
        ? "must be set to the model's directory"
        : "must be set to the model's name",
    );
  const dimensionsText = read(ENV.dimensions);
  if (dimensionsText === undefined || !/^\d{1,6}$/.test(dimensionsText))
    throw invalid(
      ENV.dimensions,
      "must be set to the model's vector length, an integer from 1 to 65536",
      dimensionsText,
    );
  const dimensions = checkDimensions(Number(dimensionsText), ENV.dimensions);
  const apiKey = read(ENV.apiKey);
  return {
    provider: chosen,
    url,
    model,
    dimensions,
    apiKey,
    allowDownload: flag(read(ENV.allowDownload), ENV.allowDownload),
  };
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (['1', 'true', 'yes'].includes(lower)) return true;
  if (['0', 'false', 'no'].includes(lower)) return false;
  throw invalid(name, 'must be 1, true, yes, 0, false or no', value);
}

/** `VALIDATION_FAILED` naming the setting and its rule (and the value, never a secret's). */
function invalid(name: string, rule: string, value?: string): MemoryError {
  const got = value === undefined ? '' : ` ${JSON.stringify(value.slice(0, 100))}`;
  return new MemoryError('VALIDATION_FAILED', `Invalid ${name}${got}: ${rule}.`, {
    issues: [{ path: name, message: rule }],
  });
}
