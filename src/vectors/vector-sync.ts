/**
 * The part of the vector index that needs no model: the windows of rows already written follow
 * the read models' deletions, and the rows of erased items are deleted. It runs where search
 * catches up, before every vector search (inside the store's write lock on the SQLite store), so
 * a KNN never sees a window older than the read models it is checked against; and `forget` runs
 * inside the Erasure's own transaction, so the scrub after it covers the vectors too.
 */
import { rowKey, NEVER } from './vector-layout.js';
import { isStale, writing, type VectorContext } from './vector-context.js';
import { NO_PROGRESS } from './vector-progress.js';

/** Applies deletions and erasures since each version's windows checkpoint; writes only when one is due. */
export function syncWindows(context: VectorContext, mem: number): void {
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return;
  // Looked at first without the write lock: most calls find nothing to do.
  if (!context.db.inTransaction && !windowsDue(context, mem, vmem)) return;
  let erased = false;
  writing(context.db, () => {
    const head = context.windows.checkpoint(mem);
    for (const table of context.tables) {
      const key = table.version.key;
      let progress = context.progress.get(key, vmem);
      const stale = isStale(context, mem, progress, head);
      if (stale) progress = NO_PROGRESS;
      if (!stale && progress.windows >= head.seq) continue;
      const deleted = context.windows.deletedBetween(mem, progress.windows, head.seq);
      const gone = context.windows.erasedBetween(mem, progress.windows, head.seq);
      if (!stale && deleted.length === 0 && gone.length === 0) continue;
      for (const { seq, deletedSeq } of deleted)
        if (seq <= progress.seq) table.setGone(rowKey(vmem, seq), BigInt(deletedSeq));
      for (const seq of gone) erased = table.remove(rowKey(vmem, seq)) || erased;
      context.progress.set(key, vmem, { ...progress, windows: head.seq });
    }
  });
  // Rows removed here belong to an Erasure applied without this index attached: scrub again.
  if (erased) context.scrub();
}

/** True when some version has deletions or erasures to apply, or progress that does not fit. */
function windowsDue(context: VectorContext, mem: number, vmem: number): boolean {
  const head = context.windows.checkpoint(mem);
  return context.tables.some((table) => {
    const progress = context.progress.get(table.version.key, vmem);
    if (isStale(context, mem, progress, head)) return true;
    if (progress.windows >= head.seq) return false;
    return (
      context.windows.deletedBetween(mem, progress.windows, head.seq).length > 0 ||
      context.windows.erasedBetween(mem, progress.windows, head.seq).length > 0
    );
  });
}

/** Deletes the vectors of the item at `seq` in every version (inside the Erasure's transaction). */
export function forgetVectors(context: VectorContext, mem: number, seq: number): void {
  const vmem = context.vmemOf(mem, false);
  if (vmem === undefined) return;
  for (const table of context.tables) table.remove(rowKey(vmem, seq));
}

/**
 * Forgets every version's progress in a memory (its read models are rebuilt): the rows stay and
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
