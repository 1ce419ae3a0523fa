/**
 * The embedder port: texts in, one vector each out, of a model with a known number of
 * dimensions. Providers (an OpenAI-compatible server, Ollama, a local model directory, a plain
 * function) implement it; the vector index and semantic recall use nothing else.
 */

/** Options of one {@link Embedder.embed} call. */
export interface EmbedOptions {
  /** Aborts the call (and its retries) when signalled. */
  readonly signal?: AbortSignal;
}

/** A model that turns texts into vectors of a fixed length. */
export interface Embedder {
  /** The model's name as the provider knows it; it is recorded on every Recall that used it. */
  readonly model: string;
  /** The length of every vector; a provider answering another length fails, never truncated. */
  readonly dimensions: number;
  /**
   * One vector per text, in the order of `texts`, each exactly {@link dimensions} long.
   * Fails with `EMBEDDER_UNAVAILABLE` (retry later), `EMBEDDER_FAILED` (a wrong answer) or
   * `EMBEDDING_DIMENSIONS_MISMATCH`.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
