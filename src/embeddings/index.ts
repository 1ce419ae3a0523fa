/**
 * Embedding providers behind one port: an OpenAI-compatible server, Ollama, a local model
 * directory (transformers.js, optional), or a plain function; configured by options or the
 * `MEMLEDGER_EMBEDDINGS_*` environment variables.
 */
export * from './embedder.port.js';
export { checkDimensions, checkedVectors, MAX_DIMENSIONS } from './checked-vectors.js';
export { DEFAULT_BATCH_SIZE } from './batched-embedder.js';
export type { HttpOptions } from './http-embedding.js';
export { openAiEmbedder, type OpenAiEmbedderOptions } from './openai.embedder.js';
export { ollamaEmbedder, type OllamaEmbedderOptions } from './ollama.embedder.js';
export {
  localEmbedder,
  TRANSFORMERS_PACKAGE,
  type LocalEmbedderOptions,
} from './local.embedder.js';
export { functionEmbedder, type FunctionEmbedderOptions } from './function.embedder.js';
export * from './embeddings-config.js';
