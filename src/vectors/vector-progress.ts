import type Database from 'better-sqlite3';
import type { ItemWindows } from './item-windows.js';
import type { VectorVersion } from './vector-layout.js';

/** A version's progress in one memory (vector-layout.ts, `vec_progress`). */
export interface Progress {
  /** Rows are complete for every content item up to this seq (-1: none). */
  readonly seq: number;
  /** The id of the event at `seq`, to recognise the same log. */
  readonly id: string | null;
  /** Deletions and erasures are applied up to this seq. */
  readonly windows: number;
  /** True once the version has caught up with the memory (it may serve from then on). */
  readonly ready: boolean;
}

/** Nothing done yet. */
export const NO_PROGRESS: Progress = { seq: -1, id: null, windows: -1, ready: false };

/** Reads and writes `vec_progress`. */
export interface ProgressTable {
  get(key: string, vmem: number): Progress;
  set(key: string, vmem: number, progress: Progress): void;
  /** Every memory's progress in a version. */
  all(key: string): { vmem: number; memoryId: string; progress: Progress }[];
}

interface Row {
  seq: number;
  id: string | null;
  windows: number;
  ready: number;
}

/** Prepares the statements (the shared vector tables must exist). */
export function prepareProgressTable(db: Database.Database): ProgressTable {
  const get = db.prepare<[string, number], Row>(
    'SELECT seq, id, windows, ready FROM vec_progress WHERE key = ? AND vmem = ?',
  );
  const set = db.prepare<[string, number, number, string | null, number, number]>(
    `INSERT OR REPLACE INTO vec_progress (key, vmem, seq, id, windows, ready)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const all = db.prepare<[string], Row & { vmem: number; memory_id: string }>(
    `SELECT p.vmem, m.memory_id, p.seq, p.id, p.windows, p.ready FROM vec_progress AS p
       JOIN vec_memories AS m ON m.vmem = p.vmem WHERE p.key = ?`,
  );
  const of = (row: Row): Progress => ({
    seq: row.seq,
    id: row.id,
    windows: row.windows,
    ready: row.ready === 1,
  });
  return {
    get(key, vmem) {
      const row = get.get(key, vmem);
      return row ? of(row) : NO_PROGRESS;
    },
    set(key, vmem, p) {
      set.run(key, vmem, p.seq, p.id, p.windows, p.ready ? 1 : 0);
    },
    all: (key) =>
      all.all(key).map((row) => ({ vmem: row.vmem, memoryId: row.memory_id, progress: of(row) })),
  };
}

/** One version's progress over every memory it has touched. */
export interface VersionProgress extends VectorVersion {
  readonly current: boolean;
  readonly memories: number;
  readonly readyMemories: number;
  /** Content items not embedded yet, summed over the memories. */
  readonly behind: number;
}

/**
 * The progress of `version` over every memory the read models hold (for logs and `/metrics`):
 * a memory it has not touched yet counts as not ready, all its content behind.
 */
export function versionProgress(
  version: VectorVersion,
  current: boolean,
  progress: ProgressTable,
  windows: ItemWindows,
): VersionProgress {
  const touched = new Map(progress.all(version.key).map((row) => [row.memoryId, row.progress]));
  let behind = 0;
  let memories = 0;
  let readyMemories = 0;
  for (const mem of windows.memoryKeys()) {
    const memoryId = windows.memoryIdOf(mem);
    const p = (memoryId === undefined ? undefined : touched.get(memoryId)) ?? NO_PROGRESS;
    const head = windows.checkpoint(mem).seq;
    if (head < 0) continue;
    memories++;
    if (p.ready) readyMemories++;
    behind += windows.contentBetween(mem, p.seq, head);
  }
  return { ...version, current, memories, readyMemories, behind };
}
