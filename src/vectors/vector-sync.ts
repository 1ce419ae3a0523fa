/**
 * The part of the vector index that needs no model, run as a projection on the read models'
 * runtime (src/memory/vector-windows.projection.ts): the windows of rows already written follow
 * the read models' deletions, and the rows of erased items are deleted. It is applied after the
 * read models in the same transaction (inline in each append's on SQLite, so an erased item's
 * vectors leave in the Erasure's own transaction; by the runtime's catch-up elsewhere), so a
 * KNN never sees a window older than the item index it is checked against.
 */
import { rowKey, NEVER } from './vector-layout.js';
import { isStale, type VectorContext } from './vector-context.js';
import { NO_PROGRESS } from './vector-progress.js';

/**
 * How far every version's windows stand in a memory: up to right before the first deletion or
 * erasure past a version's windows (events in between give it nothing to do, so windows are
 * written only when something changed), the read models' checkpoint when none is left; -1 when
 * a version's progress does not fit the read models (it is checked again from the start).
 */
export function windowsCheckpoint(context: VectorContext, mem: number): number {
  const head = context.windows.checkpoint(mem);
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return head.seq;
  let low = head.seq;
  for (const table of context.tables) {
    const progress = context.progress.get(table.version.key, vmem);
    if (isStale(context, mem, progress, head)) return -1;
    if (progress.windows >= low) continue;
    const change = context.windows.firstChangeAfter(mem, progress.windows);
    if (change !== undefined) low = Math.min(low, change - 1);
  }
  return low;
}

/**
 * Applies the deletions and erasures the read models hold past each version's windows, inside
 * the caller's transaction; true when rows of erased items were deleted (the caller scrubs).
 */
export function syncWindows(context: VectorContext, mem: number): boolean {
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return false;
  let erased = false;
  const head = context.windows.checkpoint(mem);
  for (const table of context.tables) {
    const key = table.version.key;
    let progress = context.progress.get(key, vmem);
    const stale = isStale(context, mem, progress, head);
    if (stale) progress = NO_PROGRESS;
    if (!stale && progress.windows >= head.seq) continue;
    const deleted = context.windows.deletedBetween(mem, progress.windows, head.seq);
    const gone = context.windows.erasedBetween(mem, progress.windows, head.seq);
    // Nothing to write: the checkpoint reports past such a stretch (windowsCheckpoint).
    if (!stale && deleted.length === 0 && gone.length === 0) continue;
    for (const { seq, deletedSeq } of deleted)
      if (seq <= progress.seq) table.setGone(rowKey(vmem, seq), BigInt(deletedSeq));
    for (const seq of gone) erased = table.remove(rowKey(vmem, seq)) || erased;
    context.progress.set(key, vmem, { ...progress, windows: head.seq });
  }
  return erased;
}

/** Whether every version's progress in a memory fits the read models (made from the same log). */
export function windowsAgree(context: VectorContext, mem: number): boolean {
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return true;
  const head = context.windows.checkpoint(mem);
  return context.tables.every(
    (table) => !isStale(context, mem, context.progress.get(table.version.key, vmem), head),
  );
}

/**
 * Forgets every version's progress in a memory (its derived data is rebuilt): the rows stay and
 * are checked again by digest as the catch-up walks the log, so nothing is embedded twice.
 */
export function resetVectors(context: VectorContext, mem: number): void {
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return;
  for (const table of context.tables) context.progress.set(table.version.key, vmem, NO_PROGRESS);
}

/** `gone` of an item as the read models have it now. */
export function goneOf(deletedSeq: number | null): bigint {
  return deletedSeq === null ? NEVER : BigInt(deletedSeq);
}
