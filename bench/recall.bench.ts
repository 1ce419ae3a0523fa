/**
 * Recall latency (search + Recall append, the auditable read) at 100 k documents, against the
 * search alone measured in the same run, on the in-memory store.
 */
import { createDocument } from '../src/core/index.js';
import { openMemledger } from '../src/memory/index.js';
import { openInMemoryStore } from '../src/store/in-memory/in-memory.event-log.js';
import { percentile, report, timeMs, words } from './support.js';

export async function benchRecall(documents = 100_000, samples = 300): Promise<void> {
  const store = openInMemoryStore();
  const memledger = openMemledger({ store });
  const memory = await memledger.memory();
  const log = store.log();
  for (let i = 0; i < documents; i += 5000) {
    const batch = Array.from({ length: Math.min(5000, documents - i) }, (_, j) =>
      createDocument({ name: `doc-${i + j}`, text: words(i + j, 40) }),
    );
    await log.append(batch);
  }
  await memory.state(); // the projections catch up before timing starts
  const queries = Array.from({ length: samples }, (_, i) => words(i * 7 + 1, 2));
  const searchMs: number[] = [];
  for (const q of queries) searchMs.push(await timeMs(() => memory.search(q, { limit: 5 })));
  const recallMs: number[] = [];
  for (const q of queries) recallMs.push(await timeMs(() => memory.recall({ query: q, limit: 5 })));
  await memledger.close();
  report('recall', {
    documents,
    samples,
    'search-only p50 ms (baseline)': percentile(searchMs, 50),
    'recall p50 ms': percentile(recallMs, 50),
    'recall p99 ms': percentile(recallMs, 99),
    'recall / search p50 ratio': percentile(recallMs, 50) / percentile(searchMs, 50),
    'target recall p50 ms (DESIGN)': 2,
  });
}
