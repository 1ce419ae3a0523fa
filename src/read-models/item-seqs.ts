/**
 * Finding items by id, for the projection (Deletion and Erasure targets, recalled ids) and for
 * item lookups. Where the log lives in the same file (the SQLite store), the log's own index by
 * (memory, id) answers: a second index by id in the read models cost one more B-tree insert at
 * a random place in every append, the largest part of the read models' commit in a batch (one
 * dirtied page per event). Read models in a file of their own keep that index, `rm_items_by_id`.
 */
import type Database from 'better-sqlite3';
import type { EmbeddedDatabase } from '../store/event-log.port.js';
import { readModelNames, type ReadModelNames } from './read-model.names.js';

/** The seq of each of `ids` in one memory (`mem`); ids not found are left out. */
export type SeqsOf = (mem: number, ids: readonly string[]) => Map<string, number>;

/** Seqs found on the log's index, in the store's own database. */
export function seqsOnLog(embedded: EmbeddedDatabase, memoryIdOf: (mem: number) => string): SeqsOf {
  return (mem, ids) => embedded.seqsOf(memoryIdOf(mem), ids);
}

/** Seqs found on the read models' own index by id (`rm_items_by_id`), in one layout (`names`). */
export function seqsOnReadModels(
  db: Database.Database,
  names: ReadModelNames = readModelNames(),
): SeqsOf {
  const items = names.rm_items;
  const one = db
    .prepare<[number, string], number>(`SELECT seq FROM ${items} WHERE mem = ? AND id = ?`)
    .pluck();
  const many = db
    .prepare<[number, string], [string, number]>(
      `SELECT id, seq FROM ${items} WHERE mem = ? AND id IN (SELECT value FROM json_each(?))`,
    )
    .raw();
  return (mem, ids) => {
    const out = new Map<string, number>();
    if (ids.length === 1) {
      const seq = one.get(mem, ids[0]!);
      if (seq !== undefined) out.set(ids[0]!, seq);
    } else if (ids.length > 1)
      for (const [id, seq] of many.all(mem, JSON.stringify(ids))) out.set(id, seq);
    return out;
  };
}
