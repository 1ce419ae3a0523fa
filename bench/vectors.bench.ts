/**
 * The vector index at 100 k items of 384 dimensions (the search bench's ~1 KB documents), on the
 * SQLite store's own file, with two embedders: the hashing test embedder (sparse vectors with
 * the structure of shared words) and the topic stand-in (dense vectors shaped like a sentence
 * model's, topic-embedder.ts), each text embedded once and reused. For float, int8 and binary
 * vectors (binary also with 8 candidates per hit instead of 4): top-100 latency as of a random
 * seq (the query vector given: the embedding call excluded), recall@10 against the exact float top 10 of the same embedder, and disk per vector
 * against the raw float32 (and quantized) bytes. Same-run baselines: a brute-force top 100 over
 * the hashing vectors held in process memory, and the FTS5 (BM25) search of the same queries.
 * A third block measures real text with learned vectors: the model `MEMLEDGER_EMBEDDINGS_*`
 * configures (every note embedded once before anything is timed), else GloVe with `--glove`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { embeddingsConfigFromEnv, openEmbedder, type Embedder } from '../src/embeddings/index.js';
import { createDocument, type Document, type Sequenced } from '../src/core/index.js';
import { openProjectionRuntime } from '../src/projections/index.js';
import {
  openEmbeddedReadModels,
  registerReadModels,
  type ReadModelDb,
} from '../src/read-models/index.js';
import type { MemoryStore } from '../src/store/event-log.port.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import {
  VectorIndex,
  defaultProbes,
  itemText,
  unitVector,
  type Quantization,
} from '../src/vectors/index.js';
import { hashingVector } from '../test/support/hashing-embedder.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { memoisedEmbedder, percentile, report, seededRandom, timeMs } from './support.js';
import { gloveVectors } from './glove-embedder.js';
import { installedSentences, textCorpus } from './text-corpus.js';
import { topicEmbedder } from './topic-embedder.js';

/** An embedder over a memo of hashing vectors: each text is hashed once for every version. */
export function memoEmbedder(dimensions: number, model = `bench-hashing-${dimensions}`) {
  return memoisedEmbedder(model, dimensions, (text) => unitVector(hashingVector(text, dimensions)));
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

/** How a measured version stores and searches: quantization, oversampling, cells and probes. */
interface Shape {
  readonly quantization: Quantization;
  readonly oversample?: number;
  readonly cells?: number;
  readonly probes?: number;
}

/** Opens the vector index of `db` in a shape. */
function openIndex(db: ReadModelDb, embedder: Embedder, shape: Shape) {
  return VectorIndex.open(
    {
      db: db.database,
      events: (mem, memoryId, seqs) => {
        db.keyOf(memoryId);
        return db.queries.events(mem, seqs);
      },
      scrub: () => db.wal.request(),
    },
    { embedder, ...shape, batchSize: 2000 },
  );
}

/** The corpus's vectors from one embedder, with the queries' and their exact top 100. */
interface Vectors {
  readonly name: string;
  readonly embedder: Embedder;
  readonly asked: { text: string; vector: Float32Array; asOf: number }[];
  readonly exact: number[][];
  readonly bruteMs: number[];
}

/** Embeds the corpus and the queries with a memo embedder, and brute-forces the exact top 100. */
function vectorsOf(
  name: string,
  memo: { embedder: Embedder; vectorOf: (text: string) => Float32Array },
  corpus: readonly Sequenced<Document>[],
  samples: number,
  queries: readonly string[] = searchQueries(corpus, samples),
): Vectors {
  const vectors = corpus.map((item) => memo.vectorOf(itemText(item)));
  const next = seededRandom(5);
  const asked = queries.map((text) => ({
    text,
    vector: memo.vectorOf(text),
    asOf: Math.floor(next() * corpus.length),
  }));
  const bruteMs: number[] = [];
  const exact = asked.map(({ vector, asOf }) => {
    const started = performance.now();
    const top = bruteForceTop(vectors, vector, asOf, 100);
    bruteMs.push(performance.now() - started);
    return top;
  });
  return { name, embedder: memo.embedder, asked, exact, bruteMs };
}

/**
 * Builds one version (or opens it again, built) and measures its top-100 latency, recall and
 * disk; a quantized one re-scores 4 candidates per hit, or `oversample`.
 */
async function measureVersion(
  db: ReadModelDb,
  mem: number,
  { name, embedder, asked, exact }: Vectors,
  shape: Shape,
): Promise<Record<string, number | string>> {
  const { quantization, oversample, cells, probes } = shape;
  const index = openIndex(db, embedder, shape);
  const buildMs = await timeMs(() => index.catchUp(mem));
  const ms: number[] = [];
  let recall10 = 0;
  let same100 = 0;
  const started = loadavg()[0]!;
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
  const count = (
    db.database.prepare(`SELECT count(*) AS n FROM ${index.current.version.key}_keys`).get() as {
      n: number;
    }
  ).n;
  const dimensions = embedder.dimensions;
  const stored =
    quantization === 'none'
      ? 4 * dimensions
      : quantization === 'int8'
        ? dimensions
        : dimensions / 8;
  const celled = cells ? ` cells ${cells}/${probes ?? defaultProbes(cells)}` : '';
  const at = `${name} ${quantization}${oversample ? ` x${oversample}` : ''}${celled}:`;
  const samples = asked.length;
  const figures: Record<string, number | string> = {
    [`${at} build (embed from memo + insert) s`]: buildMs / 1000,
    [`${at} top-100 p50 ms`]: percentile(ms, 50),
    [`${at} top-100 p99 ms`]: percentile(ms, 99),
    [`${at} recall@10 vs exact float`]: recall10 / samples,
    [`${at} top-100 overlap with exact`]: same100 / samples,
    [`${at} disk bytes per vector`]: bytes / count,
    [`${at} disk / raw float32 bytes`]: bytes / count / (4 * dimensions),
    [`${at} load average (1 min) before / after`]: `${started.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}`,
  };
  if (quantization !== 'none')
    figures[`${at} disk / (quantized + float32 kept) bytes`] =
      bytes / count / (stored + 4 * dimensions);
  return figures;
}

/** Where the real-text block's learned vectors come from: a GloVe file, or a configured model. */
type RealTextSource = { readonly glovePath: string } | { readonly embedder: Embedder };

/**
 * A memo of `texts`' vectors from the configured model, embedded once before anything is timed
 * (a model behind HTTP answers asynchronously; the timed KNN must not wait for it). With `cache`,
 * the vectors are kept in that file and read from it by a later run of the same model and texts:
 * a CPU-bound model takes an hour for 100 k notes.
 */
async function embeddedMemo(embedder: Embedder, texts: readonly string[], cache?: string) {
  const distinct = [...new Set(texts)];
  const { model, dimensions } = embedder;
  const digest = createHash('sha256')
    .update(JSON.stringify({ model, dimensions, distinct }))
    .digest('hex');
  const kept = cache && existsSync(cache) ? readFileSync(cache) : undefined;
  let embedded: Float32Array[];
  if (kept && kept.subarray(0, 64).toString() === digest) {
    const floats = new Float32Array(
      kept.buffer.slice(kept.byteOffset + 64, kept.byteOffset + kept.byteLength),
    );
    embedded = distinct.map((_, i) => floats.subarray(i * dimensions, (i + 1) * dimensions));
  } else {
    // The provider sends them in batches of its own and checks every answer.
    embedded = (await embedder.embed(distinct)).map((vector) => Float32Array.from(vector));
    if (cache) {
      const floats = new Float32Array(distinct.length * dimensions);
      embedded.forEach((vector, i) => floats.set(vector, i * dimensions));
      writeFileSync(cache, Buffer.concat([Buffer.from(digest), Buffer.from(floats.buffer)]));
    }
  }
  const vectors = new Map(distinct.map((text, i) => [text, unitVector(embedded[i]!)]));
  return memoisedEmbedder(embedder.model, embedder.dimensions, (text) => {
    const vector = vectors.get(text);
    if (!vector) throw new Error(`bench: no vector was embedded for "${text.slice(0, 40)}"`);
    return vector;
  });
}

/**
 * A second memory, `text`, of `items` real-text notes (text-corpus.ts) and learned vectors: GloVe
 * cut to 96 dimensions (binary needs a multiple of 8), or the model that `MEMLEDGER_EMBEDDINGS_*`
 * configures; queries are sentences of the same pool.
 */
async function realTextVectors(
  store: MemoryStore,
  source: RealTextSource,
  items: number,
  samples: number,
  cache?: string,
): Promise<{ vectors: Vectors; about: string }> {
  const sentences = installedSentences();
  const texts = textCorpus(sentences, items);
  let n = 0;
  const defaults = {
    newId: () => `00000000-0000-7000-9000-${(n++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1) + n * 1000),
  };
  const corpus = texts.map((note, seq) => ({
    ...createDocument({ name: `note-${seq}`, text: note }, defaults),
    seq,
  }));
  const log = store.log('text');
  for (let i = 0; i < corpus.length; i += 1000)
    await log.append(corpus.slice(i, i + 1000).map((event) => ({ ...event, seq: null })));
  const next = seededRandom(13);
  const queries = Array.from(
    { length: samples },
    () => sentences[Math.floor(next() * sentences.length)]!,
  );
  let name = 'glove96';
  let memo: { embedder: Embedder; vectorOf: (text: string) => Float32Array };
  if ('glovePath' in source) {
    const glove = gloveVectors(source.glovePath, 96);
    memo = memoisedEmbedder('bench-glove-96', 96, (note) => unitVector(glove.vectorOf(note)));
  } else {
    name = `model ${source.embedder.model}`;
    memo = await embeddedMemo(
      source.embedder,
      [...corpus.map((item) => itemText(item)), ...queries],
      cache,
    );
  }
  return {
    vectors: vectorsOf(name, memo, corpus, samples, queries),
    about: `${corpus.length} notes from ${sentences.length} sentences of the installed packages' Markdown`,
  };
}

/**
 * Float, int8 and binary versions, binary again with twice the candidates, and binary and float
 * in cells (`CELL_SHAPES`).
 */
async function measureVersions(
  db: ReadModelDb,
  mem: number,
  vectors: Vectors,
  figures: Record<string, number | string>,
): Promise<void> {
  const shapes: Shape[] = [
    ...(['none', 'int8', 'binary'] as const).map((quantization) => ({ quantization })),
    { quantization: 'binary', oversample: 8 },
    ...CELL_SHAPES,
  ];
  for (const shape of shapes) Object.assign(figures, await measureVersion(db, mem, vectors, shape));
}

/**
 * The shapes with cells measured: 64 cells suit 100 k rows (about the square root over 4), read
 * a third at a time (the default), a quarter and an eighth; and float read a third at a time.
 */
const CELL_SHAPES: Shape[] = [
  { quantization: 'binary', cells: 64 },
  { quantization: 'binary', cells: 64, probes: 16 },
  { quantization: 'binary', cells: 64, probes: 8 },
  { quantization: 'none', cells: 64 },
];

/** The real-text block's notes (the items by default) and where its model's vectors are kept. */
export interface RealTextOptions {
  readonly glovePath?: string | undefined;
  readonly items?: number | undefined;
  readonly vectorCache?: string | undefined;
}

/** The SQLite store's file holding `corpus` in memory `default`, with its read models registered. */
async function fileOf(dir: string, corpus: readonly Sequenced<Document>[]) {
  const store = openSqliteStore({ path: join(dir, 'vectors.db'), synchronous: 'NORMAL' });
  const db = openEmbeddedReadModels(store.embedded!);
  const runtime = openProjectionRuntime(db.database, db.location, store, store.embedded);
  registerReadModels(runtime, db);
  const log = store.log();
  for (let i = 0; i < corpus.length; i += 1000)
    await log.append(corpus.slice(i, i + 1000).map((event) => ({ ...event, seq: null })));
  return { store, db, runtime, mem: db.keyOf('default') };
}

/**
 * The vector index at a million items (`--large`): the topic stand-in's vectors of 1 M distinct
 * notes (a sentence of the search bench's documents and the note's number), with cells: top-100
 * latency as of a random seq and recall@10 against the exact float top 10, a brute force over
 * the million vectors in process memory (the same-run baseline). Without cells, a KNN here reads
 * every vector: the hybrid-recall bench's 1 M rows measure that.
 */
export async function benchVectorsAtScale(items = 1_000_000, samples = 100): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-vectors-large-'));
  try {
    const sentences = searchCorpus(10_000).flatMap((doc) => doc.text.split('. '));
    let n = 0;
    const defaults = {
      newId: () => `00000000-0000-7000-9000-${(n++).toString(16).padStart(12, '0')}`,
      now: () => new Date(Date.UTC(2026, 0, 1) + n * 1000),
    };
    const corpus = Array.from({ length: items }, (_, seq) => ({
      ...createDocument(
        { name: `note-${seq}`, text: `${sentences[seq % sentences.length]} (note ${seq})` },
        defaults,
      ),
      seq,
    }));
    const { store, db, runtime, mem } = await fileOf(dir, corpus);
    await runtime.advance('default');
    const vectors = vectorsOf('topics', topicEmbedder(384), corpus, samples);
    const figures: Record<string, number | string> = {
      items,
      dimensions: 384,
      samples,
      'baseline: brute force top-100 in process memory p50 ms': percentile(vectors.bruteMs, 50),
    };
    const shapes: Shape[] = [
      { quantization: 'binary', cells: 256 },
      { quantization: 'binary', cells: 256, probes: 64 },
      { quantization: 'none', cells: 256 },
    ];
    for (const shape of shapes)
      Object.assign(figures, await measureVersion(db, mem, vectors, shape));
    figures.target = 'quantized recall@10 >= 0.95';
    await store.close();
    report('vectors-1m', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchVectors(
  items = 100_000,
  samples = 200,
  dimensions = 384,
  real: RealTextOptions = {},
): Promise<void> {
  const { glovePath } = real;
  const dir = mkdtempSync(join(tmpdir(), 'memledger-vectors-'));
  try {
    const corpus = searchCorpus(items);
    const { store, db, runtime, mem } = await fileOf(dir, corpus);
    const figures: Record<string, number | string> = { items, dimensions, samples };
    const embedded = [
      vectorsOf('hashing', memoEmbedder(dimensions), corpus, samples),
      vectorsOf('topics', topicEmbedder(dimensions), corpus, samples),
    ];
    figures['baseline: brute force top-100 in process memory p50 ms'] = percentile(
      embedded[0]!.bruteMs,
      50,
    );
    await runtime.advance('default');
    const ftsMs: number[] = [];
    for (const { text, asOf } of embedded[0]!.asked)
      ftsMs.push(await timeMs(() => db.search.search(mem, text, { limit: 100, asOfSeq: asOf })));
    figures['baseline: FTS5 (BM25) top-100 p50 ms'] = percentile(ftsMs, 50);
    for (const vectors of embedded) await measureVersions(db, mem, vectors, figures);
    // Real sentences and learned vectors: what the stand-in cannot say about quantized recall.
    const model = embeddingsConfigFromEnv(process.env);
    const source = model
      ? { embedder: openEmbedder(model) }
      : glovePath
        ? { glovePath }
        : undefined;
    if (source) {
      const text = await realTextVectors(
        store,
        source,
        real.items ?? items,
        samples,
        real.vectorCache,
      );
      Object.assign(figures, { 'real-text corpus': text.about });
      await measureVersions(db, db.keyOf('text'), text.vectors, figures);
    }
    figures.target =
      'top-100 p50 <= 10 ms, p99 <= 30 ms; quantized recall@10 >= 0.95; disk <= 1.2x raw bytes';
    await store.close();
    report('vectors', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
