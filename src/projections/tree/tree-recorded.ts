/**
 * The tree a projection file holds, read as it stands: what `memledger verify --checkpoint`
 * compares the log with. Nothing is applied, created or reset, so a file opened read-only will
 * do; a tree of another layout version is not read.
 */
import type Database from 'better-sqlite3';
import { TREE_ROWS_TABLE, treeProjection, type TreeHandler } from './tree.projection.js';

/** The tree `db` holds for `memoryId`, or undefined when the file holds none for it. */
export function recordedTree(
  db: Database.Database,
  memoryId: string,
): { readonly tree: TreeHandler; readonly memoryId: string } | undefined {
  const has = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name);
  if (!has('projection_versions') || !has('projection_memories') || !has(TREE_ROWS_TABLE))
    return undefined;
  const version = db
    .prepare<[string], number>('SELECT version FROM projection_versions WHERE name = ?')
    .pluck()
    .get(treeProjection.name);
  if (version !== treeProjection.version) return undefined;
  const key = db
    .prepare<[string], number>('SELECT mem FROM projection_memories WHERE memory_id = ?')
    .pluck()
    .get(memoryId);
  if (key === undefined) return undefined;
  const tree = treeProjection.open({ db, memoryKey: () => key, existingKey: () => key });
  return { tree, memoryId };
}
