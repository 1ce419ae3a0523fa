import type Database from 'better-sqlite3';
import type { Sequenced } from '../core/index.js';
import type { ItemWindows } from './item-windows.js';
import type { Progress, ProgressTable } from './vector-progress.js';
import type { VectorTable } from './vector-table.js';

/** What the parts of the vector index share: the file, the item index, the versions' tables. */
export interface VectorContext {
  readonly db: Database.Database;
  readonly windows: ItemWindows;
  readonly progress: ProgressTable;
  /** Every registered version's statements, the current one first. */
  readonly tables: readonly VectorTable[];
  /** The vectors' own key of the read models' memory key `mem`; created when `create`. */
  vmemOf(mem: number, create: boolean): number | undefined;
  /** Content events of the memory `memoryId` (key `mem`) by seq, in plain text. */
  events(mem: number, memoryId: string, seqs: readonly number[]): Sequenced[];
  /** Asks for a scrub of the file's write-ahead log (rows of erased items were deleted). */
  scrub(): void;
}

/**
 * True when a version's progress in a memory does not fit the read models: they stand before it
 * (rebuilt, or reset), or hold another event at its seq (another log). The version's rows are
 * then checked again from the start, by digest (nothing is embedded twice).
 */
export function isStale(
  context: VectorContext,
  mem: number,
  progress: Progress,
  head: { readonly seq: number },
): boolean {
  if (progress.seq < 0) return false;
  return progress.seq > head.seq || context.windows.idAt(mem, progress.seq) !== progress.id;
}
