/**
 * Search at 100 k documents of ~1 KB of natural-language-like text: the SQLite FTS5 read model
 * (src/read-models/search.read-model.ts, in a temp file, WAL, synchronous=NORMAL) against the
 * in-memory MiniSearch index (src/core/search.ts) on the same corpus and queries. Figures:
 * build time, p50/p99 latency now and as of a seq, index bytes per document, and how far the
 * two engines' top 10 agree. Also FTS5 with every non-stop term OR-ed (no pruning of frequent
 * terms), to show what the pruning costs in agreement and saves in latency.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  createDocument,
  createSearchIndex,
  type Document,
  type SearchHit,
  type Sequenced,
} from '../src/core/index.js';
import { ensureReadModelSchema } from '../src/read-models/read-model.schema.js';
import { seqsOnReadModels } from '../src/read-models/item-seqs.js';
import { prepareWriter } from '../src/read-models/read-model.writer.js';
import { prepareSearchReadModel, queryTerms } from '../src/read-models/search.read-model.js';
import { percentile, report, seededRandom, timeMs } from './support.js';

/** English function words in rough frequency order: the head of the Zipf curve. */
const HEAD = (
  'the of and to a in is that it for was on are as with he be at by i this had not but from or ' +
  'have an they which you were her she there would their we him been has when who will more no ' +
  'if out so said what up its about into than them can only other new some could time these two ' +
  'may then do first any my now such like our over man me even most made after also did many ' +
  'before must through back years where much your way well down should because each just those ' +
  'people how too little state good very make world still own see men work long get here between'
).split(' ');
const SYLLABLES = 'ka ri mo ten sa lu bel dor in ve pa tis ro nac el fu gra mi son tal'.split(' ');
const VOCABULARY_SIZE = 50_000;
const BATCH = 1000;

/** The vocabulary (function words first, then invented words) and a Zipf (s = 1) sampler. */
function zipfWords(seed: number): { vocabulary: string[]; draw: () => string } {
  const vocabulary = [...HEAD];
  for (let i = 0; vocabulary.length < VOCABULARY_SIZE; i++) {
    let word = '';
    for (let n = i; ; n = Math.floor(n / SYLLABLES.length) - 1) {
      word = SYLLABLES[n % SYLLABLES.length]! + word;
      if (n < SYLLABLES.length) break;
    }
    vocabulary.push(word);
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= vocabulary.length; rank++) cumulative.push((total += 1 / rank));
  const next = seededRandom(seed);
  const draw = () => {
    const target = next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return vocabulary[low]!;
  };
  return { vocabulary, draw };
}

/** `docs` documents of sentences of 6 to 20 Zipf-drawn words, ~1 KB each, seq 0 onwards. */
export function searchCorpus(docs: number): Sequenced<Document>[] {
  const { draw } = zipfWords(42);
  const next = seededRandom(7);
  let n = 0;
  const defaults = {
    newId: () => `00000000-0000-7000-8000-${(n++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1) + n * 1000),
  };
  return Array.from({ length: docs }, (_, seq) => {
    let text = '';
    while (text.length < 1000) {
      const words = Array.from({ length: 6 + Math.floor(next() * 15) }, draw);
      const sentence = words.join(' ');
      text += `${sentence[0]!.toUpperCase()}${sentence.slice(1)}. `;
    }
    return { ...createDocument({ name: `note-${seq}`, text: text.trim() }, defaults), seq };
  });
}

/** 2-8 words: half a passage of a stored document, half free Zipf draws (stop words included). */
export function searchQueries(items: readonly Sequenced<Document>[], count: number): string[] {
  const { draw } = zipfWords(99);
  const next = seededRandom(11);
  return Array.from({ length: count }, (_, i) => {
    const length = 2 + Math.floor(next() * 7);
    if (i % 2 === 1) return Array.from({ length }, draw).join(' ');
    const words = items[Math.floor(next() * items.length)]!.text.split(/\s+/);
    const start = Math.floor(next() * Math.max(1, words.length - length));
    return words.slice(start, start + length).join(' ');
  });
}

/** Mean share of the top-10 ids two engines have in common (queries where both found none skipped). */
function agreement(a: readonly SearchHit[][], b: readonly SearchHit[][]): number {
  let sum = 0;
  let counted = 0;
  a.forEach((hits, i) => {
    const other = new Set(b[i]!.map((h) => h.id));
    const size = Math.max(hits.length, other.size);
    if (size === 0) return;
    sum += hits.filter((h) => other.has(h.id)).length / size;
    counted++;
  });
  return counted === 0 ? 1 : sum / counted;
}

async function latencies(
  list: readonly string[],
  run: (q: string, i: number) => SearchHit[],
): Promise<{ ms: number[]; hits: SearchHit[][] }> {
  const ms: number[] = [];
  const hits: SearchHit[][] = [];
  for (const [i, q] of list.entries()) {
    ms.push(await timeMs(() => hits.push(run(q, i))));
  }
  return { ms, hits };
}

export async function benchSearch(docs = 100_000, samples = 300): Promise<void> {
  const items = searchCorpus(docs);
  const asked = searchQueries(items, samples);
  const asOf = asked.map((_, i) => Math.floor((((i * 7919) % 1000) / 1000) * docs));

  const dir = mkdtempSync(join(tmpdir(), 'memledger-search-bench-'));
  const db = new Database(join(dir, 'search.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    ensureReadModelSchema(db, false);
    const fts = prepareSearchReadModel(db);
    // The search joins the item index, so the corpus goes through the read-model writer, and
    // is then indexed as the search catch-up indexes what the writer applied.
    // Documents only: the writer never looks an item up by id here.
    const write = prepareWriter(db, fts, false, seqsOnReadModels(db));
    const mem = 1;
    db.prepare("INSERT INTO rm_memories (mem, memory_id) VALUES (1, 'bench')").run();
    const ftsBuildMs = await timeMs(() => {
      const addBatch = db.transaction((batch: readonly Sequenced<Document>[]) => {
        for (const item of write(mem, batch)) fts.add(mem, item as Sequenced<Document>);
      });
      for (let i = 0; i < items.length; i += BATCH) addBatch(items.slice(i, i + BATCH));
    });
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;

    // FTS5 runs before MiniSearch exists, so the latter's ~2 GB heap adds no GC pauses to it.
    fts.search(mem, asked[0]!);
    const ftsNow = await latencies(asked, (q) => fts.search(mem, q));
    const ftsAsOf = await latencies(asked, (q, i) => fts.search(mem, q, { asOfSeq: asOf[i]! }));

    const unpruned = db.prepare<[number, string], SearchHit>(
      `SELECT i.id AS id, i.kind AS kind, i.seq AS seq, -f.rank AS score
       FROM search_fts AS f CROSS JOIN rm_items AS i ON i.mem = 1 AND i.seq = f.rowid - ?
       WHERE search_fts MATCH ? AND i.deleted_seq IS NULL ORDER BY f.rank LIMIT 10`,
    );
    const ftsAll = await latencies(asked, (q) => {
      const terms = queryTerms(q);
      return terms.length === 0
        ? []
        : unpruned.all(2 ** 40, terms.map((t) => `"${t}"`).join(' OR '));
    });

    const mini = createSearchIndex();
    const miniBuildMs = await timeMs(() => items.forEach((item) => mini.add(item)));
    mini.search(asked[0]!);
    const miniNow = await latencies(asked, (q) => mini.search(q));
    const miniAsOf = await latencies(asked, (q, i) => mini.search(q, { asOfSeq: asOf[i]! }));

    report('search', {
      documents: docs,
      queries: samples,
      'mean document bytes': items.reduce((sum, d) => sum + d.text.length, 0) / docs,
      'fts5 build s': ftsBuildMs / 1000,
      'minisearch build s': miniBuildMs / 1000,
      'fts5 file bytes per document': (pages * pageSize) / docs,
      'fts5 p50 ms': percentile(ftsNow.ms, 50),
      'fts5 p99 ms': percentile(ftsNow.ms, 99),
      'fts5 as-of p50 ms': percentile(ftsAsOf.ms, 50),
      'fts5 as-of p99 ms': percentile(ftsAsOf.ms, 99),
      'fts5 unpruned p50 ms': percentile(ftsAll.ms, 50),
      'fts5 unpruned p99 ms': percentile(ftsAll.ms, 99),
      'minisearch p50 ms': percentile(miniNow.ms, 50),
      'minisearch p99 ms': percentile(miniNow.ms, 99),
      'minisearch as-of p50 ms': percentile(miniAsOf.ms, 50),
      'minisearch as-of p99 ms': percentile(miniAsOf.ms, 99),
      'top-10 agreement fts5 / minisearch': agreement(ftsNow.hits, miniNow.hits),
      'top-10 agreement fts5 as-of / minisearch as-of': agreement(ftsAsOf.hits, miniAsOf.hits),
      'top-10 agreement fts5 unpruned / minisearch': agreement(ftsAll.hits, miniNow.hits),
      'top-10 agreement fts5 / fts5 unpruned': agreement(ftsNow.hits, ftsAll.hits),
      'target recall p50 / p99 ms (issue)': '5 / 25',
    });
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
