/**
 * What a semantic or hybrid recall does before it computes: the read models catch up, the
 * vectors embed what they lack (at most `embedBeforeRecall` items: a writer finds its own
 * writes), and the query is embedded with the model whose vectors serve the memory. When
 * vectors cannot serve (still being built for a new model) or the embedder is down and the
 * configuration says to fall back, the recall runs lexical, and its answer says why; the Recall
 * records the method that actually ran.
 */
import {
  isMemoryError,
  MemoryError,
  RecallMode,
  type Fusion,
  type SearchHit,
} from '../core/index.js';
import { NO_ROWS, type MemoryReadModel } from '../read-models/index.js';
import type { Serving, VectorFollower, VectorIndex } from '../vectors/index.js';
import type { VectorSearch } from './retriever.js';

/** Semantic recall as configured (see `MemledgerOptions.embeddings`). */
export interface SemanticSettings {
  readonly index: VectorIndex;
  readonly follower: VectorFollower | undefined;
  readonly defaultMode: RecallMode;
  readonly onUnavailable: 'fail' | 'lexical';
  readonly fusion: Fusion;
  readonly embedBeforeRecall: number;
}

/** How the vectors stood for a recall or search that asked for them. */
export interface VectorStatus {
  /** The mode the request asked for (or the default). */
  readonly requested: RecallMode;
  /**
   * `current`: the vectors cover everything the recall saw; `lagging`: the newest `behind`
   * items are not embedded yet (hybrid still finds them by their words); `building`: this
   * model's vectors are still being built for the memory, so lexical ran; `unavailable`: the
   * embedder failed and the configuration falls back to lexical.
   */
  readonly state: 'current' | 'lagging' | 'building' | 'unavailable';
  readonly model: string;
  readonly dimensions: number;
  /** The vectors are complete up to this seq (null: none yet). */
  readonly indexedThroughSeq: number | null;
  /** Content items the vectors lack at the seq the recall ran at. */
  readonly behind: number;
  /** Why lexical ran instead, when it did. */
  readonly reason?: string;
}

/** The outcome of the preparation: the mode that runs, and the embedded query if it needs one. */
export interface PreparedRetrieval {
  readonly requested: RecallMode;
  readonly mode: RecallMode;
  readonly serving?: Serving;
  readonly vector?: Float32Array;
  readonly fallback?: { readonly state: 'building' | 'unavailable'; readonly reason: string };
}

/** The request's mode, checked, or the default (hybrid with an embedder, lexical without). */
export function modeOf(requested: unknown, semantic: SemanticSettings | undefined): RecallMode {
  if (requested === undefined) return semantic?.defaultMode ?? 'lexical';
  const parsed = RecallMode.safeParse(requested);
  const rule = 'must be lexical, semantic or hybrid';
  if (!parsed.success)
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid mode ${JSON.stringify(requested)}: ${rule}.`,
      {
        issues: [{ path: 'mode', message: rule }],
      },
    );
  if (parsed.data !== 'lexical' && semantic === undefined) {
    const needs = 'needs an embedder (MEMLEDGER_EMBEDDINGS_URL or the embeddings option)';
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Mode ${parsed.data} ${needs}; none is configured.`,
      {
        issues: [{ path: 'mode', message: needs }],
      },
    );
  }
  return parsed.data;
}

/** Catches the vectors up (bounded) and embeds the query, or says why lexical must run. */
export async function prepareRetrieval(
  semantic: SemanticSettings | undefined,
  models: MemoryReadModel,
  query: string,
  requested: RecallMode,
): Promise<PreparedRetrieval> {
  if (requested === 'lexical' || semantic === undefined) return { requested, mode: 'lexical' };
  await models.catchUp();
  const mem = models.mem;
  const { index } = semantic;
  try {
    if (mem !== NO_ROWS) await index.catchUp(mem, { maxItems: semantic.embedBeforeRecall });
    const serving = index.serving(mem);
    if (serving === undefined) {
      semantic.follower?.schedule(mem);
      const { model } = index.current.version;
      const reason = `the vectors of ${model} are still being built for this memory`;
      return { requested, mode: 'lexical', fallback: { state: 'building', reason } };
    }
    if (mem === NO_ROWS) return { requested, mode: requested, serving };
    const [vector] = await serving.embedder.embed([query]);
    return { requested, mode: requested, serving, vector: vector! };
  } catch (error) {
    if (semantic.onUnavailable !== 'lexical' || !isMemoryError(error, 'EMBEDDER_UNAVAILABLE'))
      throw error;
    semantic.follower?.schedule(mem);
    return {
      requested,
      mode: 'lexical',
      fallback: { state: 'unavailable', reason: error.message },
    };
  }
}

/** The vector search of a prepared request at `asOfSeq`, to run inside the recall's read. */
export function vectorSearchOf(
  semantic: SemanticSettings | undefined,
  models: MemoryReadModel,
  prepared: PreparedRetrieval,
  asOfSeq: number,
): VectorSearch | undefined {
  const { serving, vector } = prepared;
  if (!semantic || !serving || prepared.mode === 'lexical') return undefined;
  const { model, dimensions } = serving.table.version;
  const search = (limit: number): SearchHit[] =>
    vector === undefined
      ? []
      : semantic.index.search(models.mem, serving.table, vector, { asOfSeq, limit });
  const vectors = semantic.index.searchRecord(models.mem, serving.table);
  return { search, model, dimensions, vectors };
}

/** How the vectors stood for a prepared request computed at `asOfSeq` (undefined: lexical asked). */
export function vectorStatus(
  semantic: SemanticSettings | undefined,
  models: MemoryReadModel,
  prepared: PreparedRetrieval,
  asOfSeq: number,
): VectorStatus | undefined {
  if (!semantic || prepared.requested === 'lexical') return undefined;
  const table = prepared.serving?.table ?? semantic.index.current;
  const { model, dimensions } = table.version;
  const mem = models.mem;
  const lag =
    mem === NO_ROWS
      ? { indexedThroughSeq: null, behind: 0 }
      : semantic.index.lag(mem, asOfSeq, table);
  const base = {
    requested: prepared.requested,
    model,
    dimensions,
    indexedThroughSeq: lag.indexedThroughSeq,
    behind: lag.behind,
  };
  if (prepared.fallback) return { ...base, ...prepared.fallback };
  if (lag.behind > 0) semantic.follower?.schedule(mem);
  return { ...base, state: lag.behind > 0 ? 'lagging' : 'current' };
}
