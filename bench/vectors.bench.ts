/**
 * The vector index at 100 k items of 384 dimensions (the search bench's ~1 KB documents, embedded
 * by the hashing test embedder: vectors with the structure of shared words, built once and
 * reused), on the SQLite store's own file: top-100 latency as of a random seq with float, int8
 * and binary vectors (the query vector given: the embedding call excluded), recall@10 of the
 * quantized versions against the exact float top 10, and disk per vector against the raw
 * float32 (and quantized) bytes. Same-run baselines: a brute-force top 100 over the same vectors
 * held in process memory, and the FTS5 (BM25) search of the same queries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { functionEmbedder, type Embedder } from '../src/embeddings/index.js';
import { openProjectionRuntime } from '../src/projections/index.js';
import {
  openEmbeddedReadModels,
  readModelsProjection,
  searchProjection,
  type ReadModelDb,
} from '../src/read-models/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { VectorIndex, itemText, unitVector, type Quantization } from '../src/vectors/index.js';
import { hashingVector } from '../test/support/hashing-embedder.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { percentile, report, seededRandom, timeMs } from './support.js';

/** An embedder over a memo of hashing vectors: each text is hashed once for every version. */
export function memoEmbedder(dimensions: number, model = `bench-hashing-${dimensions}`) {
  const memo = new Map<string, Float32Array>();
  const vectorOf = (text: string) => {
    let vector = memo.get(text);
    if (!vector) memo.set(text, (vector = unitVector(hashingVector(text, dimensions))));
    return vector;
  };
  const embedder: Embedder = functionEmbedder({
    model,
    dimensions,
    batchSize: 4096,
    embed: (texts) => texts.map(vectorOf),
  });
  return { embedder, vectorOf };
}

/** The exact top `k` (cosine) over `vectors[0..upTo]`, by brute force in process memory. */
export function bruteForceTop(
  vectors: readonly Float32Array[],
  query: Float32Array,
  upTo: number,
  k: number,
): number[] {
  const scores = new Float64Array(upTo + 1);
  for (let i = 0; i <= upTo; i++) {
    const v = vectors[i]!;
    let dot = 0;
    for (let d = 0; d < v.length; d++) dot += v[d]! * query[d]!;
    scores[i] = dot;
  }
  return [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).slice(0, k);
}

/** Bytes of the tables whose names start with `prefix` (dbstat). */
function tableBytes(db: Database.Database, prefix: string): number {
  return (
    db
      .prepare<[string], number>("SELECT sum(pgsize) FROM dbstat WHERE name LIKE ? || '%'")
      .pluck()
      .get(prefix) ?? 0
  );
}

/** Opens the vector index of `db` with a quantization. */
function openIndex(db: ReadModelDb, embedder: Embedder, quantization: Quantization) {
  return VectorIndex.open(
    {
      db: db.database,
      events: (mem, memoryId, seqs) => {
        db.keyOf(memoryId);
        return db.queries.events(mem, seqs);
      },
      scrub: () => db.wal.request(),
    },
    { embedder, quantization, batchSize: 2000 },
  );
}

export async function benchVectors(
  items = 100_000,
  samples = 200,
  dimensions = 384,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-vectors-'));
  try {
    const corpus = searchCorpus(items);
    const store = openSqliteStore({ path: join(dir, 'vectors.db'), synchronous: 'NORMAL' });
    const db = openEmbeddedReadModels(store.embedded!);
    const runtime = openProjectionRuntime(db.database, db.location, store, store.embedded);
    runtime.register(readModelsProjection(db));
    runtime.register(searchProjection(db));
    const log = store.log();
    for (let i = 0; i < items; i += 1000)
      await log.append(corpus.slice(i, i + 1000).map((event) => ({ ...event, seq: null })));
    const mem = db.keyOf('default');
    const { embedder, vectorOf } = memoEmbedder(dimensions);
    const hashMs = await timeMs(() => corpus.forEach((item) => vectorOf(itemText(item))));
    const vectors = corpus.map((item) => vectorOf(itemText(item)));
    const next = seededRandom(5);
    const asked = searchQueries(corpus, samples).map((text) => ({
      text,
      vector: vectorOf(text),
      asOf: Math.floor(next() * items),
    }));
    const figures: Record<string, number | string> = { items, dimensions, samples };
    figures['hashing-embedder vectors of the corpus s (outside the samples)'] = hashMs / 1000;
    const bruteMs: number[] = [];
    const exact = asked.map(({ vector, asOf }) => {
      const started = performance.now();
      const top = bruteForceTop(vectors, vector, asOf, 100);
      bruteMs.push(performance.now() - started);
      return top;
    });
    figures['baseline: brute force top-100 in process memory p50 ms'] = percentile(bruteMs, 50);
    await runtime.advance('default');
    const ftsMs: number[] = [];
    for (const { text, asOf } of asked)
      ftsMs.push(await timeMs(() => db.search.search(mem, text, { limit: 100, asOfSeq: asOf })));
    figures['baseline: FTS5 (BM25) top-100 p50 ms'] = percentile(ftsMs, 50);
    for (const quantization of ['none', 'int8', 'binary'] as const) {
      const index = openIndex(db, embedder, quantization);
      const buildMs = await timeMs(() => index.catchUp(mem));
      const ms: number[] = [];
      let recall10 = 0;
      let same100 = 0;
      for (const [i, { vector, asOf }] of asked.entries()) {
        let hits: { seq: number }[] = [];
        ms.push(
          await timeMs(
            () => (hits = index.search(mem, index.current, vector, { asOfSeq: asOf, limit: 100 })),
          ),
        );
        const top10 = new Set(exact[i]!.slice(0, 10));
        recall10 += hits.slice(0, 10).filter((h) => top10.has(h.seq)).length / top10.size;
        const top100 = new Set(exact[i]);
        same100 += hits.filter((h) => top100.has(h.seq)).length / top100.size;
      }
      const bytes = tableBytes(db.database, index.current.version.key);
      const stored =
        quantization === 'none'
          ? 4 * dimensions
          : quantization === 'int8'
            ? dimensions
            : dimensions / 8;
      figures[`${quantization}: build (embed from memo + insert) s`] = buildMs / 1000;
      figures[`${quantization}: top-100 p50 ms`] = percentile(ms, 50);
      figures[`${quantization}: top-100 p99 ms`] = percentile(ms, 99);
      figures[`${quantization}: p50 / brute force in memory`] =
        percentile(ms, 50) / percentile(bruteMs, 50);
      figures[`${quantization}: recall@10 vs exact float`] = recall10 / samples;
      figures[`${quantization}: top-100 overlap with exact`] = same100 / samples;
      figures[`${quantization}: disk bytes per vector`] = bytes / items;
      figures[`${quantization}: disk / raw float32 bytes`] = bytes / items / (4 * dimensions);
      if (quantization !== 'none')
        figures[`${quantization}: disk / (quantized + float32 kept) bytes`] =
          bytes / items / (stored + 4 * dimensions);
    }
    figures.target =
      'top-100 p50 <= 10 ms, p99 <= 30 ms; quantized recall@10 >= 0.95; disk <= 1.2x raw bytes';
    await store.close();
    report('vectors', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
