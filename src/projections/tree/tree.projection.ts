/**
 * The verifiable log's tree as a projection (invariant 10, docs/architecture.md): one row per leaf,
 * `(mem, seq) -> leaf hash || the hashes of the complete subtrees that leaf completes`
 * (src/tlog/tree-rows.ts), computed from each event's stored form with the memledger/leaf/v1
 * encoding. A root at any size, an inclusion path and a consistency path read O(log n) rows by
 * primary key; the log is never read or rehashed to answer them. Rows are only ever inserted,
 * as the log's are; a rebuild drops a memory's rows and computes the same ones again.
 */
import { MemoryError } from '../../core/index.js';
import { multiRowInsert, RowBuffer } from '../../db/multi-row-insert.js';
import { reading } from '../../db/transactions.js';
import {
  eventsAfter,
  type ProjectedEvent,
  type Projection,
  type ProjectionContext,
  type ProjectionHandler,
} from '../../store/projection.port.js';
import {
  appendRows,
  consistencyPath,
  inclusionPath,
  rowSubtrees,
  treeRoot,
  type SubtreeSource,
} from '../../tlog/index.js';
import { leafHashOfEvent } from './tree-leaf.js';

/** The projection's one table. */
export const TREE_ROWS_TABLE = 'tree_rows';

/** The DDL of the rows table, named `table` in the layout being opened. */
const schema = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  mem INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  row BLOB NOT NULL,
  PRIMARY KEY (mem, seq)
) WITHOUT ROWID, STRICT;`;

/** The tree of every memory of a file, open: applies events and answers roots and proofs. */
export interface TreeHandler extends ProjectionHandler {
  /** How many leaves the tree of `memoryId` holds: its checkpoint + 1. */
  size(memoryId: string): number;
  /** The root of the first `size` leaves (`TREE_SIZE_PAST_HEAD` past the tree's size). */
  root(memoryId: string, size: number): Buffer;
  /** The RFC 9162 inclusion path of leaf `seq` in the tree of `size` leaves. */
  inclusionPath(memoryId: string, seq: number, size: number): Buffer[];
  /** The RFC 9162 consistency path from the tree of `from` leaves to the tree of `to`. */
  consistencyPath(memoryId: string, from: number, to: number): Buffer[];
  /** The leaf hash the tree holds for `seq` (`TREE_SIZE_PAST_HEAD` when it holds none). */
  leafHash(memoryId: string, seq: number): Buffer;
}

/** A projection whose handler is the tree's. */
export interface TreeProjection extends Projection {
  open(context: ProjectionContext): TreeHandler;
}

/**
 * The tree projection (`tree`, layout version 1), following the log by catch-up. Its table is
 * named through the runtime, so a release that changes the rows' layout keeps this one as the
 * next's `previous`: proofs are then answered from these rows while the new ones are built
 * beside them (docs/layout-upgrades.md).
 */
export const treeProjection: TreeProjection = {
  name: 'tree',
  version: 1,
  tables: [TREE_ROWS_TABLE],
  // Caught up from the log before each checkpoint and proof, as on EventStoreDB, not written in
  // each append's transaction: hashing every event and a row per leaf there put appends over the
  // verifiable log's budget (DESIGN.md; figures in BENCHMARKS.md). Evidence against a writer of
  // the file is the signed checkpoints, not the tree (docs/verifiable-log.md).
  inline: false,
  open: (context) => openTree(context),
};

function openTree(context: ProjectionContext): TreeHandler {
  const { db } = context;
  const table = `"${context.table?.(TREE_ROWS_TABLE) ?? TREE_ROWS_TABLE}"`;
  db.exec(schema(table));
  const sql = {
    last: db
      .prepare<[number], number>(`SELECT seq FROM ${table} WHERE mem = ? ORDER BY seq DESC LIMIT 1`)
      .pluck(),
    row: db
      .prepare<[number, number], Buffer>(`SELECT row FROM ${table} WHERE mem = ? AND seq = ?`)
      .pluck(),
    insert: multiRowInsert<number | Buffer>(db, `INSERT INTO ${table} (mem, seq, row) VALUES`, 3),
    reset: db.prepare<[number]>(`DELETE FROM ${table} WHERE mem = ?`),
  };
  const checkpoint = (mem: number | undefined) =>
    mem === undefined ? -1 : (sql.last.get(mem) ?? -1);
  /** The stored rows of one memory, each read once per query. */
  const rowsOf = (mem: number): SubtreeSource => {
    const cache = new Map<number, Buffer | undefined>();
    return rowSubtrees((leaf) => {
      if (!cache.has(leaf)) cache.set(leaf, sql.row.get(mem, leaf));
      return cache.get(leaf);
    });
  };
  /** Runs `work` over one memory's rows in one read transaction (one snapshot of the tree). */
  const readRows = <T>(memoryId: string, size: number, work: (rows: SubtreeSource) => T): T =>
    reading(db, () => {
      // Reads write nothing: a memory without a key holds no leaves.
      const mem = context.existingKey(memoryId);
      checkSize(memoryId, size, checkpoint(mem) + 1);
      return work(rowsOf(mem ?? 0));
    });

  /** Writes the leaves of `events`, the first of them leaf `first` of the memory `mem`. */
  const appendLeaves = (
    memoryId: string,
    mem: number,
    first: number,
    events: readonly ProjectedEvent[],
  ) => {
    const hashes = events.map((projected, i) => {
      checkFollows(memoryId, projected, first + i);
      return leafHashOfEvent(memoryId, projected);
    });
    const inserts = new RowBuffer(sql.insert);
    for (const [i, row] of appendRows(first, hashes, rowsOf(mem)).entries())
      inserts.add(mem, first + i, row);
    inserts.flush();
  };

  return {
    checkpoint: (memoryId) => checkpoint(context.existingKey(memoryId)),
    apply(memoryId, events) {
      if (events.length === 0) return;
      const mem = context.memoryKey(memoryId);
      appendLeaves(memoryId, mem, checkpoint(mem) + 1, events);
    },
    applyNext(memoryId, events) {
      const mem = context.memoryKey(memoryId);
      const last = checkpoint(mem);
      const applied = eventsAfter(events, last);
      if (applied.length > 0) appendLeaves(memoryId, mem, last + 1, applied);
      return applied;
    },
    reset(memoryId) {
      const mem = context.existingKey(memoryId);
      if (mem !== undefined) sql.reset.run(mem);
    },
    /**
     * The tree was made from this log when the leaf it recorded at its checkpoint is the leaf of
     * the event the log holds there now; otherwise the runtime rebuilds it from the log, and the
     * checkpoints signed before decide whether the history may be signed again.
     */
    agrees(memoryId, atCheckpoint) {
      const seq = atCheckpoint.event.seq;
      return leafHashOfEvent(memoryId, atCheckpoint).equals(
        readRows(memoryId, seq + 1, (rows) => rows.node(0, seq)),
      );
    },
    size: (memoryId) => reading(db, () => checkpoint(context.existingKey(memoryId)) + 1),
    root: (memoryId, size) => readRows(memoryId, size, (rows) => treeRoot(rows, size)),
    inclusionPath: (memoryId, seq, size) =>
      readRows(memoryId, size, (rows) => inclusionPath(rows, seq, size)),
    consistencyPath: (memoryId, from, to) =>
      readRows(memoryId, to, (rows) => consistencyPath(rows, from, to)),
    leafHash(memoryId, seq) {
      checkSize(memoryId, seq, Number.MAX_SAFE_INTEGER, 'seq');
      return readRows(memoryId, seq + 1, (rows) => Buffer.from(rows.node(0, seq)));
    },
  };
}

function checkFollows(memoryId: string, projected: ProjectedEvent, expected: number): void {
  if (projected.event.seq === expected) return;
  throw new MemoryError(
    'REPLAY_ORDER',
    `The tree of memory ${memoryId} takes seq ${expected} next, not ${String(projected.event.seq)}: events must follow its checkpoint without a gap.`,
    { details: { memoryId, expected, seq: projected.event.seq } },
  );
}

function checkSize(memoryId: string, size: number, held: number, field = 'size'): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${field} ${String(size)}: must be an integer of 0 or more.`,
      { issues: [{ path: field, message: 'must be an integer of 0 or more' }] },
    );
  }
  if (size > held) throw pastHead(memoryId, size, held);
}

/** `TREE_SIZE_PAST_HEAD`: the tree of `memoryId` holds `held` leaves, fewer than `size`. */
export function pastHead(memoryId: string, size: number, held: number): MemoryError {
  return new MemoryError(
    'TREE_SIZE_PAST_HEAD',
    `The log of memory ${memoryId} holds ${held} event${held === 1 ? '' : 's'}; a tree of ${size} leaves is past its head.`,
    { details: { memoryId, size, head: held } },
  );
}
