/**
 * The KNN as of a seq. Only rows of content visible right after `asOfSeq` are candidates: the
 * window filter (`written <= n AND gone > n`) runs inside vec0's scan, so the top k at n is the
 * brute-force top k over that content (float vectors), not a filtered top k of everything. Rows
 * past the version's checkpoint are left out (their windows may not be current yet), and every
 * hit is checked against the item index once more before it is returned.
 */
import type { VectorSearchRecord } from '../core/index.js';
import type { ItemWindows } from './item-windows.js';
import { cosineOfDistance, unitVector } from './item-text.js';
import { defaultProbes } from './vector-cells.js';
import { seqOfKey } from './vector-layout.js';
import type { Neighbour, VectorTable } from './vector-table.js';

/** Options of a vector search. */
export interface VectorSearchOptions {
  /** Search the content visible right after this seq. */
  readonly asOfSeq: number;
  /** At most this many hits. */
  readonly limit: number;
}

/** One vector hit. */
export interface VectorHit {
  readonly id: string;
  readonly kind: 'message' | 'document';
  readonly seq: number;
  /** Cosine similarity to the query (from the float vectors); higher is better. */
  readonly score: number;
}

/** Where a search runs: a version's table, one memory, and how far its rows are complete. */
export interface SearchScope {
  readonly table: VectorTable;
  readonly windows: ItemWindows;
  readonly mem: number;
  readonly vmem: number;
  /** The version's checkpoint in the memory. */
  readonly through: number;
}

/** vec0's largest `k`. */
const MAX_K = 4096;

/**
 * Fewest candidates a quantized KNN re-scores: a small limit times the oversampling leaves too
 * few for the float order to correct, and the KNN's bound keeps a hundred as cheap as twenty.
 */
const MIN_CANDIDATES = 100;

/** Quantized KNN candidates per wanted hit, re-scored with the floats, unless configured. */
const DEFAULT_OVERSAMPLE = 4;

/** The oversampling and probes the index is configured with (defaults when absent). */
export interface SearchConfig {
  readonly oversample?: number | undefined;
  readonly probes?: number | undefined;
}

/**
 * How a search of memory `vmem` in `table` runs now: the quantization and its oversampling, and
 * the cells the memory's rows are split into with the number read (0 cells: every row is read,
 * as before a memory's cells form). A Recall records it; the search runs with the same settings.
 */
export function searchRecordOf(
  table: VectorTable,
  vmem: number | undefined,
  config: SearchConfig,
): VectorSearchRecord {
  const { oversample, probes } = settingsOf(table, config);
  const cells = vmem === undefined ? 0 : table.cellsIn(vmem);
  const probed = cells === 0 ? null : Math.min(cells, probes);
  return { quantization: table.version.quantization, oversample, cells, probes: probed };
}

/** The candidates per hit (null: floats, no re-scoring) and cells read a search of `table` runs with. */
function settingsOf(table: VectorTable, config: SearchConfig) {
  const { quantization, cells } = table.version;
  return {
    oversample: quantization === 'none' ? null : (config.oversample ?? DEFAULT_OVERSAMPLE),
    probes: config.probes ?? defaultProbes(cells),
  };
}

/** The nearest visible items, best first. */
export function searchVectors(
  scope: SearchScope,
  query: Float32Array,
  options: VectorSearchOptions & { readonly config: SearchConfig },
): VectorHit[] {
  const { table, windows, mem, vmem, through } = scope;
  const limit = Math.min(Math.floor(options.limit), MAX_K);
  const asOf = Math.floor(options.asOfSeq);
  if (!(limit > 0) || asOf < 0 || through < 0) return [];
  const unit = unitVector(query);
  const { oversample, probes } = settingsOf(table, options.config);
  const candidates = Math.max(MIN_CANDIDATES, limit * (oversample ?? 1));
  const k = oversample === null ? limit : Math.min(MAX_K, candidates);
  let neighbours = table.knn(unit, k, vmem, Math.min(asOf, through), asOf, probes);
  if (oversample !== null) neighbours = rescored(table, unit, neighbours);
  const seqs = neighbours.map((n) => seqOfKey(n.key));
  const visible = windows.visibleAt(mem, seqs, asOf);
  const hits: VectorHit[] = [];
  for (const n of neighbours) {
    const item = visible.get(seqOfKey(n.key));
    if (item) hits.push({ ...item, score: cosineOfDistance(n.distance) });
    if (hits.length === limit) break;
  }
  return hits;
}

/** The candidates ordered by their float vectors' distance (quantized versions). */
function rescored(table: VectorTable, query: Float32Array, candidates: Neighbour[]): Neighbour[] {
  const exact = table.exact(
    query,
    candidates.map((n) => n.key),
  );
  return candidates
    .flatMap((n) => {
      const distance = exact.get(n.key);
      return distance === undefined ? [] : [{ key: n.key, distance }];
    })
    .sort((a, b) => a.distance - b.distance || (a.key < b.key ? -1 : 1));
}
