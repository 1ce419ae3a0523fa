/**
 * A model directory on this machine, run in-process by transformers.js
 * (`@huggingface/transformers`, an optional peer dependency: install it to use this provider).
 * It is imported on first use, never at start-up, and it never downloads anything unless
 * `allowDownload` says so: a model that is not in the directory fails with a message that says
 * where it was looked for.
 */
import { basename, dirname, resolve } from 'node:path';
import { MemoryError } from '../core/index.js';
import { batchedEmbedder } from './batched-embedder.js';
import type { Embedder } from './embedder.port.js';

/** The package this provider loads. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/** Options of {@link localEmbedder}. */
export interface LocalEmbedderOptions {
  /**
   * The model's directory (ONNX weights, `config.json`, `tokenizer.json`, as transformers.js
   * exports them), e.g. `./models/all-MiniLM-L6-v2`; with `allowDownload`, a Hugging Face id.
   */
  readonly model: string;
  /** The length of the model's vectors (384 for all-MiniLM-L6-v2). */
  readonly dimensions: number;
  /** Fetch the model from the Hugging Face hub when it is not on disk. @defaultValue false */
  readonly allowDownload?: boolean;
  /** Texts per forward pass. @defaultValue 16 */
  readonly batchSize?: number | undefined;
  /** How token vectors become one: `mean` (sentence-transformers) or `cls`. @defaultValue 'mean' */
  readonly pooling?: 'mean' | 'cls';
}

/** The little of transformers.js this provider uses. */
interface Transformers {
  readonly env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: { local_files_only: boolean },
  ): Promise<
    (
      texts: string[],
      options: { pooling: string; normalize: boolean },
    ) => Promise<{ tolist(): unknown }>
  >;
}

/** An embedder running a local model through transformers.js, loaded on first use. */
export function localEmbedder(options: LocalEmbedderOptions): Embedder {
  const allowDownload = options.allowDownload ?? false;
  let extractor: ReturnType<Transformers['pipeline']> | undefined;
  const load = async () => {
    const transformers = await importTransformers();
    transformers.env.allowRemoteModels = allowDownload;
    transformers.env.allowLocalModels = true;
    const path = resolve(options.model);
    // transformers.js finds a local model as `<localModelPath>/<model id>`.
    transformers.env.localModelPath = `${dirname(path)}/`;
    const id = allowDownload && !options.model.startsWith('.') ? options.model : basename(path);
    return transformers
      .pipeline('feature-extraction', id, { local_files_only: !allowDownload })
      .catch((cause: unknown) => {
        extractor = undefined;
        throw new MemoryError(
          'EMBEDDER_UNAVAILABLE',
          `Local embedding model ${options.model} could not be loaded from ${path}${allowDownload ? ' or the Hugging Face hub' : ' (downloads are off: allowDownload / MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD)'}: ${(cause as Error).message}`,
          { details: { provider: 'local', model: options.model }, cause },
        );
      });
  };
  return batchedEmbedder({
    provider: 'local',
    model: options.model,
    dimensions: options.dimensions,
    batchSize: options.batchSize ?? 16,
    async embedBatch(texts) {
      extractor ??= load();
      const run = await extractor;
      const output = await run([...texts], { pooling: options.pooling ?? 'mean', normalize: true });
      return output.tolist();
    },
  });
}

/** transformers.js, or `EMBEDDER_UNAVAILABLE` saying how to install it. */
export async function importTransformers(): Promise<Transformers> {
  // A name in a variable: the compiler must not require the optional package to be installed.
  const name: string = TRANSFORMERS_PACKAGE;
  try {
    return (await import(name)) as Transformers;
  } catch (cause) {
    throw new MemoryError(
      'EMBEDDER_UNAVAILABLE',
      `The local embedding provider needs the optional package ${TRANSFORMERS_PACKAGE}, which is not installed: npm install ${TRANSFORMERS_PACKAGE}.`,
      { details: { provider: 'local' }, cause },
    );
  }
}
