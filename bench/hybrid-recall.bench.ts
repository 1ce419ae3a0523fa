/**
 * The auditable recall (search + Recall append) by mode at 100 k items (and 1 M), on the SQLite
 * store with its read models and vectors in the same file: lexical (BM25, the same-run
 * baseline), semantic and hybrid (RRF), with float or quantized vectors of the topic stand-in
 * (dense, shaped like a sentence model's: topic-embedder.ts). The query vector comes from a memo
 * filled before the samples, so the embedding call is excluded. The 1 M memory is the 100 k
 * corpus written ten times under new ids: ten items share each text, so it embeds 100 k texts
 * (the digest cache copies the rest) while every KNN without cells still scans 1 M rows (with
 * cells, the rows of the cells it probes).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecallMode } from '../src/core/index.js';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { defaultProbes, type Quantization } from '../src/vectors/index.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { percentile, report, timeMs } from './support.js';
import { topicEmbedder } from './topic-embedder.js';

export async function benchHybridRecall(
  distinct = 100_000,
  copies = 1,
  samples = 200,
  quantization: Quantization = 'binary',
  cells = 0,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-hybrid-'));
  const items = distinct * copies;
  try {
    const corpus = searchCorpus(distinct);
    const store = openSqliteStore({ path: join(dir, 'hybrid.db'), synchronous: 'NORMAL' });
    const { embedder, vectorOf } = topicEmbedder(384);
    const memledger = openMemledger({
      store,
      embeddings: {
        embedder,
        quantization,
        cells,
        follow: false,
        embedBeforeRecall: items,
        batchSize: 4096,
      },
    });
    const memory = await memledger.memory();
    const log = store.log();
    const appendMs = await timeMs(async () => {
      for (let copy = 0; copy < copies; copy++)
        for (let i = 0; i < distinct; i += 1000)
          await log.append(
            corpus.slice(i, i + 1000).map((event) => ({
              ...event,
              id: copy === 0 ? event.id : randomUUID(),
              seq: null,
            })),
          );
    });
    // Indexes the words and embeds every item (outside the samples).
    const buildMs = await timeMs(() => memory.search('build', { mode: 'hybrid' }));
    const queries = searchQueries(corpus, samples);
    for (const q of queries) vectorOf(q);
    const modes: RecallMode[] = ['lexical', 'semantic', 'hybrid'];
    const ms = new Map<RecallMode, number[]>(modes.map((mode) => [mode, []]));
    const returned = new Map<RecallMode, number>(modes.map((mode) => [mode, 0]));
    const loadBefore = loadavg()[0]!.toFixed(2);
    for (const query of queries)
      for (const mode of modes)
        ms.get(mode)!.push(
          await timeMs(async () => {
            const { items: got } = await memory.recall({ query, mode, limit: 5 });
            returned.set(mode, returned.get(mode)! + got.length);
          }),
        );
    const load = `${loadBefore} / ${loadavg()[0]!.toFixed(2)}`;
    await memledger.close();
    const figures: Record<string, number | string> = {
      items,
      'distinct texts': distinct,
      dimensions: 384,
      quantization,
      cells: cells ? `${cells}, ${defaultProbes(cells)} probed` : 'none',
      samples,
      'append of the items s': appendMs / 1000,
      'words indexed + every item embedded (memo) s': buildMs / 1000,
      'load average (1 min) before / after the samples': load,
    };
    for (const mode of modes) {
      figures[`${mode} recall p50 ms`] = percentile(ms.get(mode)!, 50);
      figures[`${mode} recall p99 ms`] = percentile(ms.get(mode)!, 99);
      figures[`${mode} items per recall (mean)`] = returned.get(mode)! / samples;
    }
    const lexical = percentile(ms.get('lexical')!, 50);
    figures['hybrid / lexical p50'] = percentile(ms.get('hybrid')!, 50) / lexical;
    figures['semantic / lexical p50'] = percentile(ms.get('semantic')!, 50) / lexical;
    figures.target = 'hybrid recall p50 <= 15 ms at 100 k items, <= 60 ms at 1 M';
    const size = items >= 1_000_000 ? `${items / 1_000_000}m` : `${items / 1000}k`;
    report(`hybrid-recall-${size}-${quantization}${cells ? `-cells-${cells}` : ''}`, figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
