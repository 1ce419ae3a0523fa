/**
 * Recall latency (search + Recall append, the auditable read) at 100 k documents of ~1 KB of
 * natural-language-like text, on the SQLite store with its read models, against the inspection
 * search alone (no append) measured in the same run. Queries are 2-8 words, stop words included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { percentile, report, timeMs } from './support.js';

export async function benchRecall(documents = 100_000, samples = 300): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-recall-'));
  try {
    // The corpus carries seqs; the store assigns its own, so they are dropped.
    const corpus = searchCorpus(documents);
    const store = openSqliteStore({ path: join(dir, 'recall.db'), synchronous: 'NORMAL' });
    const memledger = openMemledger({ store });
    const memory = await memledger.memory();
    const log = store.log();
    const buildMs = await timeMs(async () => {
      for (let i = 0; i < documents; i += 1000)
        await log.append(corpus.slice(i, i + 1000).map((event) => ({ ...event, seq: null })));
    });
    const queries = searchQueries(corpus, samples);
    // The search index follows the appends in batches before a search: catch it up before the
    // samples, so the first one does not carry the indexing of the whole corpus.
    const catchUpMs = await timeMs(() => memory.search('catch up'));
    const searchMs: number[] = [];
    for (const q of queries) searchMs.push(await timeMs(() => memory.search(q, { limit: 5 })));
    const recallMs: number[] = [];
    let returned = 0;
    for (const q of queries)
      recallMs.push(
        await timeMs(async () => {
          returned += (await memory.recall({ query: q, limit: 5 })).items.length;
        }),
      );
    await memledger.close();
    report('recall', {
      documents,
      samples,
      'build (append with read models) s': buildMs / 1000,
      'search index catch-up after the build s (outside the samples)': catchUpMs / 1000,
      'inspection search p50 ms (baseline)': percentile(searchMs, 50),
      'inspection search p99 ms': percentile(searchMs, 99),
      'recall p50 ms': percentile(recallMs, 50),
      'recall p99 ms': percentile(recallMs, 99),
      'recall / search p50 ratio': percentile(recallMs, 50) / percentile(searchMs, 50),
      'items returned per recall (mean)': returned / samples,
      target: 'recall p50 <= 5 ms, p99 <= 25 ms',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
