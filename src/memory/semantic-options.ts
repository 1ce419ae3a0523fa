/**
 * The `embeddings` option of `openMemledger`: which model embeds, how recall uses it, and the
 * vector index and its background follower it opens over the read models' file.
 */
import { DEFAULT_RRF_K, Fusion, MemoryError, RecallMode, parseOrThrow } from '../core/index.js';
import {
  embeddingsConfigFromEnv,
  openEmbedder,
  type Embedder,
  type EmbeddingsConfig,
} from '../embeddings/index.js';
import type { ProjectionRuntime } from '../projections/index.js';
import type { ReadModelDb } from '../read-models/index.js';
import { VectorFollower, VectorIndex, type Quantization } from '../vectors/index.js';
import type { SemanticSettings } from './semantic-retrieval.js';
import { vectorWindowsProjection } from './vector-windows.projection.js';

/** Semantic and hybrid recall (docs/semantic-recall.md). */
export interface EmbeddingsOptions {
  /** The model: an {@link Embedder}, or the settings of a provider (url, model, dimensions...). */
  readonly embedder: Embedder | EmbeddingsConfig;
  /**
   * The model of an earlier version: after a model change, its vectors serve a memory until the
   * new model's have caught up with it (recall is lexical meanwhile without it).
   * @defaultValue none
   */
  readonly previous?: Embedder | EmbeddingsConfig;
  /** The mode of a recall or search that names none. @defaultValue 'hybrid' */
  readonly defaultMode?: RecallMode;
  /**
   * When the embedder is down: `fail` the recall (`EMBEDDER_UNAVAILABLE`, retryable, nothing
   * appended) or run it `lexical` (recorded so, and the answer says why). @defaultValue 'fail'
   */
  readonly onUnavailable?: 'fail' | 'lexical';
  /** Reciprocal Rank Fusion's `k` and the lists' weights. @defaultValue k 60, weights 1 and 1 */
  readonly fusion?: {
    readonly k?: number;
    readonly weights?: { readonly lexical?: number; readonly semantic?: number };
  };
  /**
   * How searched vectors are stored: `none` (float32, the exact top k), `int8` or `binary`
   * (a quantized copy searched first, re-scored with the floats: faster, not exact; measure
   * its recall with your model first). @defaultValue 'none'
   */
  readonly quantization?: Quantization;
  /**
   * Candidates a quantized search re-scores per hit wanted (at least 100 in all): more finds
   * more of the exact top k, at the cost of a slower search (docs/semantic-recall.md).
   * @defaultValue 4
   */
  readonly oversample?: number;
  /**
   * Cells a large memory's vectors are split into (an inverted file): a search reads only the
   * cells nearest its query, which makes it several times faster at a million items and no longer
   * exact; measure its recall with your model first. About a quarter of the square root of the
   * items you expect per memory (256 for a million); cells form once a memory holds 16 items per
   * cell. 0: none, every search reads every vector. @defaultValue 0
   */
  readonly cells?: number;
  /** Cells a search reads, from 1 to `cells`. @defaultValue a third of `cells` */
  readonly probes?: number;
  /** Content items a recall embeds itself before it answers (then it reports the lag). @defaultValue 256 */
  readonly embedBeforeRecall?: number;
  /** Embed new content in the background after appends, and build a new model's vectors. @defaultValue true */
  readonly follow?: boolean;
  /** Items per embedding batch. @defaultValue 256 */
  readonly batchSize?: number;
  /** Characters of an item that are embedded (models read a bounded number of tokens). @defaultValue 8000 */
  readonly maxChars?: number;
}

/** The most candidates per hit a search may re-score (vec0 reads at most 4,096 in all). */
const MAX_OVERSAMPLE = 64;

/** The most cells a version may have (each holds at least one vec0 chunk per memory). */
export const MAX_CELLS = 4096;

/** `value` when it is an integer from `min` to `max`, else a refusal naming `name` and the rule. */
function checkedInteger(
  value: unknown,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max)
    return value as number;
  const rule = `must be an integer from ${min} to ${max}`;
  throw new MemoryError('VALIDATION_FAILED', `Invalid ${name} ${JSON.stringify(value)}: ${rule}.`, {
    issues: [{ path: name, message: rule }],
  });
}

/** `value` when it is an oversampling factor, else a refusal naming `name` and the rule. */
function checkedOversample(value: unknown, name: string): number | undefined {
  return checkedInteger(value, name, 1, MAX_OVERSAMPLE);
}

/** The cells and probes of the options, checked (`names` are how the user named them). */
function checkedCells(
  cells: unknown,
  probes: unknown,
  names = { cells: 'cells', probes: 'probes' },
): { cells?: number; probes?: number } {
  // 1 cell would be every row in one: the same as none, named so.
  const count = cells === 0 ? 0 : checkedInteger(cells, names.cells, 2, MAX_CELLS);
  const probed = checkedInteger(probes, names.probes, 1, MAX_CELLS);
  if (probed !== undefined && !count) {
    const rule = `needs ${names.cells}`;
    throw new MemoryError('VALIDATION_FAILED', `Invalid ${names.probes}: ${rule}.`, {
      issues: [{ path: names.probes, message: rule }],
    });
  }
  if (probed !== undefined && count && probed > count) {
    const rule = `must be at most ${names.cells} (${count})`;
    throw new MemoryError('VALIDATION_FAILED', `Invalid ${names.probes} ${probed}: ${rule}.`, {
      issues: [{ path: names.probes, message: rule }],
    });
  }
  return {
    ...(count ? { cells: count } : {}),
    ...(probed !== undefined ? { probes: probed } : {}),
  };
}

/**
 * Opens the vector index over the read models' file, registers its windows on their runtime
 * (after the read models), and returns the settings recall uses.
 */
export function openSemantic(
  db: ReadModelDb,
  projections: ProjectionRuntime,
  options: EmbeddingsOptions,
  onNotice: (notice: string) => void,
): SemanticSettings {
  const embedder = embedderOf(options.embedder);
  const previous = options.previous === undefined ? undefined : embedderOf(options.previous);
  const embedBeforeRecall = options.embedBeforeRecall ?? 256;
  if (!Number.isSafeInteger(embedBeforeRecall) || embedBeforeRecall < 0)
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid embedBeforeRecall ${String(embedBeforeRecall)}: must be an integer of 0 or more.`,
      { issues: [{ path: 'embedBeforeRecall', message: 'must be an integer of 0 or more' }] },
    );
  const oversample = checkedOversample(options.oversample, 'oversample');
  const cells = checkedCells(options.cells, options.probes);
  const fusion = parseOrThrow(
    Fusion,
    {
      method: 'rrf',
      k: options.fusion?.k ?? DEFAULT_RRF_K,
      weights: {
        lexical: options.fusion?.weights?.lexical ?? 1,
        semantic: options.fusion?.weights?.semantic ?? 1,
      },
    },
    'fusion',
  );
  const index = VectorIndex.open(
    {
      db: db.database,
      events: (mem, memoryId, seqs) => {
        // The read models load a memory's events by its id, known once its key was looked up.
        db.keyOf(memoryId);
        return db.read(() => db.queries.events(mem, seqs));
      },
      scrub: () => db.wal.request(),
      itemTables: () => db.names,
    },
    {
      embedder,
      previous,
      quantization: options.quantization,
      oversample,
      ...cells,
      batchSize: options.batchSize,
      maxChars: options.maxChars,
    },
  );
  projections.register(vectorWindowsProjection(db, index));
  const follower =
    options.follow === false
      ? undefined
      : new VectorFollower(index, { onNotice, memoryKeys: () => index.windows.memoryKeys() });
  follower?.sweep();
  return {
    index,
    follower,
    defaultMode: parseOrThrow(RecallMode, options.defaultMode ?? 'hybrid', 'defaultMode'),
    onUnavailable: options.onUnavailable ?? 'fail',
    fusion,
    embedBeforeRecall,
  };
}

function embedderOf(value: Embedder | EmbeddingsConfig): Embedder {
  return isEmbedder(value) ? value : openEmbedder(value);
}

function isEmbedder(value: Embedder | EmbeddingsConfig): value is Embedder {
  return typeof (value as Partial<Embedder>).embed === 'function';
}

/**
 * The embeddings options the environment names (undefined: none, recall stays lexical): the
 * provider from `MEMLEDGER_EMBEDDINGS_*` (src/embeddings/embeddings-config.ts), and
 * `MEMLEDGER_EMBEDDINGS_FALLBACK` (`fail` or `lexical`), `MEMLEDGER_EMBEDDINGS_QUANTIZATION`
 * (`none`, `int8` or `binary`), `MEMLEDGER_EMBEDDINGS_OVERSAMPLE` (an integer from 1 to 64),
 * `MEMLEDGER_EMBEDDINGS_CELLS` (0, or 2 to 4096) and `MEMLEDGER_EMBEDDINGS_PROBES` (1 to the cells).
 */
export function embeddingsOptionsFromEnv(env: NodeJS.ProcessEnv): EmbeddingsOptions | undefined {
  const embedder = embeddingsConfigFromEnv(env);
  if (!embedder) return undefined;
  const choice = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = env[name]?.trim().toLowerCase();
    if (!value) return undefined;
    if (allowed.includes(value as T)) return value as T;
    const rule = `must be one of ${allowed.join(', ')}`;
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name} ${JSON.stringify(value)}: ${rule}.`,
      {
        issues: [{ path: name, message: rule }],
      },
    );
  };
  const onUnavailable = choice('MEMLEDGER_EMBEDDINGS_FALLBACK', ['fail', 'lexical'] as const);
  const quantization = choice('MEMLEDGER_EMBEDDINGS_QUANTIZATION', [
    'none',
    'int8',
    'binary',
  ] as const);
  // A number the variable names, or its text (refused by the check, which quotes it).
  const numberOf = (name: string) => {
    const value = env[name]?.trim();
    return value ? (/^[0-9]+$/.test(value) ? Number(value) : value) : undefined;
  };
  const oversample = checkedOversample(
    numberOf('MEMLEDGER_EMBEDDINGS_OVERSAMPLE'),
    'MEMLEDGER_EMBEDDINGS_OVERSAMPLE',
  );
  const cells = checkedCells(
    numberOf('MEMLEDGER_EMBEDDINGS_CELLS'),
    numberOf('MEMLEDGER_EMBEDDINGS_PROBES'),
    { cells: 'MEMLEDGER_EMBEDDINGS_CELLS', probes: 'MEMLEDGER_EMBEDDINGS_PROBES' },
  );
  return {
    embedder,
    ...(onUnavailable ? { onUnavailable } : {}),
    ...(quantization ? { quantization } : {}),
    ...(oversample ? { oversample } : {}),
    ...cells,
  };
}
