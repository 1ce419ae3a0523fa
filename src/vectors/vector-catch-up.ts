/**
 * The follower that embeds: content written after a version's checkpoint is read in batches,
 * each item's text looked up by digest (a row of the same text, in this memory or another, gives
 * its vector: a rebuild or a repeated text never asks the model again), the rest embedded
 * outside any transaction, and the batch written in one short write transaction that moves the
 * checkpoint. Appends never wait for it. Before writing, the batch is checked against the item
 * index again: an item erased meanwhile gets no vector, and if another process moved the
 * checkpoint first, the batch is dropped (its work was done there).
 */
import { MemoryError, isContent, isErased } from '../core/index.js';
import { checkedVectors, type EmbedOptions, type Embedder } from '../embeddings/index.js';
import { contentDigest, itemText, unitVector } from './item-text.js';
import { rowKey } from './vector-layout.js';
import { writing } from '../db/transactions.js';
import { isStale, type VectorContext } from './vector-context.js';
import { NO_PROGRESS, type Progress } from './vector-progress.js';
import { goneOf } from './vector-sync.js';
import type { VectorTable } from './vector-table.js';

/** What one batch needs: the version, its model and the bounds. */
export interface BatchPlan {
  readonly table: VectorTable;
  readonly embedder: Embedder;
  readonly batchSize: number;
  readonly maxChars: number;
  readonly signal?: AbortSignal | undefined;
}

/** What one batch did. */
export interface BatchOutcome {
  /** Items the batch walked past (embedded, copied from the cache, or checked by digest). */
  readonly items: number;
  /** Texts the model embedded. */
  readonly embedded: number;
  /** True when the version stands at the read models' checkpoint. */
  readonly done: boolean;
}

interface Pending {
  readonly seq: number;
  readonly digest: Buffer;
  readonly text: string;
  vector: Float32Array | undefined;
  /** The row already holds this text (a reconciled row): only its window is brought up to date. */
  readonly kept: boolean;
}

/** Embeds and writes the next batch of one memory in one version. */
export async function embedNextBatch(
  context: VectorContext,
  mem: number,
  plan: BatchPlan,
): Promise<BatchOutcome> {
  const { table } = plan;
  const vmem = context.vmemOf(mem, false) ?? firstRows(context, mem);
  const head = context.windows.checkpoint(mem);
  let progress = context.progress.get(table.version.key, vmem);
  if (isStale(context, mem, progress, head)) progress = NO_PROGRESS;
  if (progress.seq >= head.seq) {
    if (!progress.ready) markReady(context, table, vmem, progress, head.seq);
    return { items: 0, embedded: 0, done: true };
  }
  const seqs = context.windows
    .contentAfter(mem, progress.seq, plan.batchSize)
    .filter((seq) => seq <= head.seq);
  const to = seqs.length === plan.batchSize ? seqs.at(-1)! : head.seq;
  const pending = pendingItems(context, mem, vmem, seqs, plan);
  const embedded = await embedMissing(pending, plan);
  const written = writing(context.db, () =>
    writeBatch(context, { mem, vmem, table, from: progress, to, pending }),
  );
  return { items: written ? seqs.length : 0, embedded, done: written && to >= head.seq };
}

/**
 * Creates the vectors' key of a memory they hold no row of: no deletion or erasure up to the read
 * models' checkpoint has a row to change, so every version's windows start there.
 */
function firstRows(context: VectorContext, mem: number): number {
  return writing(context.db, () => {
    const vmem = context.vmemOf(mem, true)!;
    const windows = context.windows.checkpoint(mem).seq;
    for (const table of context.tables)
      context.progress.set(table.version.key, vmem, { ...NO_PROGRESS, windows });
    return vmem;
  });
}

/** The batch's items with their digests, and the vectors the version already holds for them. */
function pendingItems(
  context: VectorContext,
  mem: number,
  vmem: number,
  seqs: readonly number[],
  { table, maxChars }: BatchPlan,
): Pending[] {
  const memoryId = context.windows.memoryIdOf(mem)!;
  const events = context.events(mem, memoryId, seqs);
  if (events.length !== seqs.length) {
    // Never move the checkpoint past content it could not read.
    throw new MemoryError(
      'STORE_FAILED',
      `Vectors of memory ${memoryId}: ${seqs.length - events.length} of ${seqs.length} content events from seq ${seqs[0]} could not be read.`,
      { details: { memoryId, from: seqs[0], missing: seqs.length - events.length } },
    );
  }
  const existing = table.digests(seqs.map((seq) => rowKey(vmem, seq)));
  const out: Pending[] = [];
  for (const event of events) {
    if (!isContent(event) || isErased(event)) continue;
    const text = itemText(event, maxChars);
    const digest = contentDigest(text);
    const kept = existing.get(rowKey(vmem, event.seq))?.equals(digest) ?? false;
    out.push({
      seq: event.seq,
      digest,
      text,
      kept,
      vector: kept ? undefined : table.cached(digest),
    });
  }
  return out;
}

/** Asks the model for the vectors the cache lacks (each distinct text once); returns how many. */
async function embedMissing(pending: Pending[], plan: BatchPlan): Promise<number> {
  const missing = new Map<string, Pending[]>();
  for (const item of pending) {
    if (item.kept || item.vector) continue;
    const key = item.digest.toString('hex');
    missing.set(key, [...(missing.get(key) ?? []), item]);
  }
  if (missing.size === 0) return 0;
  const groups = [...missing.values()];
  const options: EmbedOptions = plan.signal ? { signal: plan.signal } : {};
  const vectors = await plan.embedder.embed(
    groups.map((group) => group[0]!.text),
    options,
  );
  // The embedder may be any implementation of the port: its answer is checked like a provider's.
  const { model } = plan.embedder;
  const { dimensions } = plan.table.version;
  const checked = checkedVectors(
    { provider: 'embedder', model, dimensions },
    vectors,
    groups.length,
  );
  groups.forEach((group, i) => {
    const vector = unitVector(checked[i]!);
    for (const item of group) item.vector = vector;
  });
  return groups.length;
}

/** Everything one batch writes, checked against the item index of this very transaction. */
interface BatchWrite {
  readonly mem: number;
  readonly vmem: number;
  readonly table: VectorTable;
  readonly from: Progress;
  readonly to: number;
  readonly pending: readonly Pending[];
}

/** Writes the batch and moves the checkpoint; false when another process moved it first. */
function writeBatch(context: VectorContext, batch: BatchWrite): boolean {
  const { mem, vmem, table, from, to, pending } = batch;
  const key = table.version.key;
  const now = context.progress.get(key, vmem);
  const head = context.windows.checkpoint(mem);
  const expected = isStale(context, mem, now, head) ? NO_PROGRESS : now;
  if (expected.seq !== from.seq || head.seq < to) return false;
  const windows = context.windows.windowsOf(
    mem,
    pending.map((item) => item.seq),
  );
  const wanted = new Set<bigint>();
  for (const item of pending) {
    const window = windows.get(item.seq);
    if (!window || window.erased) continue;
    const row = rowKey(vmem, item.seq);
    wanted.add(row);
    const gone = goneOf(window.deletedSeq);
    if (item.kept) {
      table.setGone(row, gone);
      continue;
    }
    table.remove(row);
    table.insert({
      key: row,
      vmem,
      vector: item.vector!,
      written: item.seq,
      gone,
      digest: item.digest,
    });
  }
  // Rows in the range that are no content of this log (a log restored from elsewhere, an item
  // erased meanwhile) go.
  for (const row of table.keysBetween(rowKey(vmem, from.seq + 1), rowKey(vmem, to)))
    if (!wanted.has(row)) table.remove(row);
  const ready = from.ready || to >= head.seq;
  context.progress.set(key, vmem, {
    seq: to,
    id: context.windows.idAt(mem, to) ?? null,
    windows: expected.windows,
    ready,
  });
  return true;
}

function markReady(
  context: VectorContext,
  table: VectorTable,
  vmem: number,
  progress: Progress,
  headSeq: number,
): void {
  writing(context.db, () => {
    const now = context.progress.get(table.version.key, vmem);
    if (now.seq !== progress.seq) return;
    context.progress.set(table.version.key, vmem, {
      ...now,
      ready: true,
      seq: Math.max(now.seq, headSeq),
    });
  });
}
