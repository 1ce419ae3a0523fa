/**
 * The local provider (transformers.js, an optional peer dependency). Without the package, the
 * embedder must say how to install it; with it and a model directory in
 * `MEMLEDGER_TEST_LOCAL_MODEL_DIR` (and its `MEMLEDGER_TEST_LOCAL_MODEL_DIMENSIONS`, default 384),
 * a real model embeds. Nothing is ever downloaded here.
 */
import { isMemoryError } from '../../src/core/index.js';
import { localEmbedder, TRANSFORMERS_PACKAGE } from '../../src/embeddings/index.js';

const installed = await import(TRANSFORMERS_PACKAGE as string).then(
  () => true,
  () => false,
);
const modelDir = process.env.MEMLEDGER_TEST_LOCAL_MODEL_DIR?.trim();
const skipReason = !installed
  ? `${TRANSFORMERS_PACKAGE} is not installed (an optional peer dependency)`
  : !modelDir
    ? 'MEMLEDGER_TEST_LOCAL_MODEL_DIR is not set'
    : undefined;
if (skipReason) console.log(`local embedder with a real model skipped: ${skipReason}.`);

describe('local embedder (transformers.js)', () => {
  (installed ? it.skip : it)(
    `fails with EMBEDDER_UNAVAILABLE saying how to install ${TRANSFORMERS_PACKAGE} when it is missing`,
    async () => {
      const embedder = localEmbedder({ model: '/nonexistent/model', dimensions: 384 });
      const error: unknown = await embedder.embed(['x']).catch((e: unknown) => e);
      expect(isMemoryError(error, 'EMBEDDER_UNAVAILABLE')).toBe(true);
      expect((error as Error).message).toContain(`npm install ${TRANSFORMERS_PACKAGE}`);
    },
  );

  (skipReason ? it.skip : it)(
    `embeds with a real local model${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
    async () => {
      const dimensions = Number(process.env.MEMLEDGER_TEST_LOCAL_MODEL_DIMENSIONS ?? 384);
      const embedder = localEmbedder({ model: modelDir!, dimensions });
      const [question, kid, key] = await embedder.embed([
        'who is my daughter?',
        'Sophie is my kid',
        'the deploy key rotates on Fridays',
      ]);
      const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
      expect(question).toHaveLength(dimensions);
      expect(cosine(question!, kid!)).toBeGreaterThan(cosine(question!, key!));
    },
    120_000,
  );
});
