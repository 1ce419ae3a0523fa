/**
 * `npm run bench`: every benchmark, each reporting against a baseline measured in the same run.
 * Figures are printed and written to bench/results/*.json. Not part of `npm test`: speed is
 * measured here, never asserted with timers in tests.
 *
 * `npm run bench -- --quick` runs each at a small size (minutes, for a smoke check);
 * `npm run bench -- --large` adds the 10 M-event memory open (long: it builds the file first),
 * the hybrid recall at 1 M items and the vector index's recall with cells at 1 M;
 * `npm run bench -- --only retrieval-quality --dataset locomo10.json` measures retrieval quality
 * on LoCoMo (bench/retrieval-quality.bench.ts says where to get it; a synthetic set without it),
 * `--glove <file>` with averaged GloVe word vectors (bench/glove-embedder.ts) as the embedder.
 * A model configured by `MEMLEDGER_EMBEDDINGS_*` (docs/semantic-recall.md) takes the place of
 * GloVe in `retrieval-quality` and in the real-text block of `vectors`; there `--real-items <n>`
 * sets how many notes it embeds, and `--vector-cache <file>` keeps their vectors for the next run.
 */
import { benchAppendWithEmbedder } from './append-embedder.bench.js';
import { benchAccess } from './access.bench.js';
import { benchDisk } from './disk.bench.js';
import { benchEventStoreDbAppend } from './eventstoredb-append.bench.js';
import { benchHybridRecall } from './hybrid-recall.bench.js';
import { benchIdleMemories } from './idle-memories.bench.js';
import { benchOpenMemory } from './open-memory.bench.js';
import { benchRecall } from './recall.bench.js';
import { benchRebuild } from './rebuild.bench.js';
import { benchReplay } from './replay.bench.js';
import { benchRetrievalQuality } from './retrieval-quality.bench.js';
import { benchSearch } from './search.bench.js';
import { benchSqliteAppend } from './sqlite-append.bench.js';
import { benchStateAtSeq } from './state-at-seq.bench.js';
import { benchTracingOverhead } from './tracing-overhead.bench.js';
import { benchVectors, benchVectorsAtScale } from './vectors.bench.js';
import { benchStartUp } from './start-up.bench.js';
import { benchTreeAppend } from './tree-append.bench.js';
import { benchVerifiableLog } from './verifiable-log.bench.js';

const quick = process.argv.includes('--quick');
const large = process.argv.includes('--large');
/** `--only a,b`: run only the named benchmarks (the names below), e.g. `--only sqlite-append`. */
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt < 0 ? undefined : new Set(process.argv[onlyAt + 1]?.split(',') ?? []);
const datasetAt = process.argv.indexOf('--dataset');
const dataset = datasetAt < 0 ? undefined : process.argv[datasetAt + 1];
const gloveAt = process.argv.indexOf('--glove');
const glove = gloveAt < 0 ? undefined : process.argv[gloveAt + 1];
/** `--real-items <n>`: notes of the vectors bench's real-text block (its items by default). */
const realItemsAt = process.argv.indexOf('--real-items');
const realItems = realItemsAt < 0 ? undefined : Number(process.argv[realItemsAt + 1]);
/** `--vector-cache <file>`: where the real-text block keeps a configured model's vectors. */
const vectorCacheAt = process.argv.indexOf('--vector-cache');
const vectorCache = vectorCacheAt < 0 ? undefined : process.argv[vectorCacheAt + 1];
const bench = async (name: string, run: () => Promise<void>) => {
  if (!only || only.has(name)) await run();
};
console.log(`memledger benchmarks (${quick ? 'quick' : 'full'}) on Node ${process.version}`);
await bench('replay', () => benchReplay(quick ? 100_000 : 1_000_000));
await bench('sqlite-append', async () => {
  // Rounds (medians): a commit's fsync varies run to run far more than the CPU work does, so the
  // FULL singles take the most rounds; all of them stay short (0.1-0.5 s a side a round).
  const rounds = quick ? 3 : 5;
  await benchSqliteAppend(quick ? 200 : 1000, 1, 'FULL', quick ? 3 : 9);
  await benchSqliteAppend(quick ? 1000 : 5000, 1, 'NORMAL', rounds);
  await benchSqliteAppend(quick ? 20 : 100, 100, 'NORMAL', rounds);
  // The same batches with recall targets drawn from everything visible, not the latest items.
  await benchSqliteAppend(quick ? 20 : 100, 100, 'NORMAL', rounds, 'anywhere');
  await benchSqliteAppend(quick ? 20 : 100, 100, 'FULL', rounds);
});
await bench('eventstoredb-append', () => benchEventStoreDbAppend(quick ? 200 : 1000));
await bench('disk', () => benchDisk(quick ? 10_000 : 100_000));
await bench('recall', () => benchRecall(quick ? 10_000 : 100_000, quick ? 100 : 300));
await bench('search', () => benchSearch(quick ? 10_000 : 100_000, quick ? 100 : 300));
await bench('vectors', () =>
  benchVectors(quick ? 10_000 : 100_000, quick ? 50 : 200, 384, {
    glovePath: glove,
    items: realItems,
    vectorCache,
  }),
);
if (large) await bench('vectors', () => benchVectorsAtScale());
await bench('hybrid-recall', async () => {
  for (const quantization of ['binary', 'none'] as const)
    await benchHybridRecall(quick ? 10_000 : 100_000, 1, quick ? 50 : 200, quantization);
  if (large) {
    await benchHybridRecall(100_000, 10, 100, 'binary');
    await benchHybridRecall(100_000, 10, 100, 'binary', 256);
  }
});
await bench('append-embedder', () => benchAppendWithEmbedder(quick ? 500 : 2000, quick ? 3 : 21));
await bench('retrieval-quality', () => benchRetrievalQuality(dataset, glove));
await bench('state-at-seq', () => benchStateAtSeq(quick ? 20_000 : 100_000, quick ? 20 : 40));
await bench('access', () =>
  benchAccess(quick ? 5000 : 20_000, quick ? 100 : 1000, quick ? 50 : 100, quick ? 3 : 6),
);
await bench('idle-memories', () => benchIdleMemories(quick ? 1000 : 10_000, quick ? 2000 : 10_000));
await bench('rebuild', () => benchRebuild(quick ? 20_000 : 200_000));
await bench('open-memory', async () => {
  await benchOpenMemory(quick ? 100_000 : 1_000_000);
  if (large) await benchOpenMemory(10_000_000);
});
await bench('start-up', async () => benchStartUp(quick ? 5 : 15));
await bench('tree-append', async () => {
  await benchTreeAppend(quick ? 200 : 1000, 1, 'FULL', quick ? 3 : 7);
  await benchTreeAppend(quick ? 20 : 100, 100, 'NORMAL', quick ? 3 : 7);
  await benchTreeAppend(quick ? 20 : 100, 100, 'NORMAL', quick ? 3 : 7, 'anywhere');
});
await bench('verifiable-log', () =>
  benchVerifiableLog(quick ? 100_000 : 1_000_000, quick ? 200 : 1000),
);
// Last: it registers (then removes) global OpenTelemetry providers.
await bench('tracing-overhead', () =>
  benchTracingOverhead(quick ? 2000 : 10_000, quick ? 50 : 100, quick ? 4 : 10),
);
