/**
 * The tree a projection file holds, read as it stands: what `memledger verify --checkpoint`
 * compares the log with. Nothing is applied, created or reset, so a file opened read-only will
 * do; a tree of another layout version is not read.
 */
import type Database from 'better-sqlite3';
import {
  TREE_ROWS_TABLE,
  treeProjection,
  type TreeHandler,
  type TreeProjection,
} from './tree.projection.js';

/** The tree `db` holds for `memoryId`, or undefined when the file holds none for it. */
export function recordedTree(
  db: Database.Database,
  memoryId: string,
  /** The layout this code reads. */
  projection: TreeProjection = treeProjection,
): { readonly tree: TreeHandler; readonly memoryId: string } | undefined {
  const has = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name);
  if (!has('projection_versions') || !has('projection_memories')) return undefined;
  // A layout built beside another keeps its suffix once it serves (projection-tables.ts).
  const suffix = has('projection_layouts')
    ? (db
        .prepare<[string], string>(
          "SELECT suffix FROM projection_layouts WHERE name = ? AND role = 'serving'",
        )
        .pluck()
        .get(projection.name) ?? '')
    : '';
  if (!has(TREE_ROWS_TABLE + suffix)) return undefined;
  const version = db
    .prepare<[string], number>('SELECT version FROM projection_versions WHERE name = ?')
    .pluck()
    .get(projection.name);
  if (version !== projection.version) return undefined;
  const key = db
    .prepare<[string], number>('SELECT mem FROM projection_memories WHERE memory_id = ?')
    .pluck()
    .get(memoryId);
  if (key === undefined) return undefined;
  const tree = projection.open({
    db,
    memoryKey: () => key,
    existingKey: () => key,
    table: (name) => name + suffix,
  });
  return { tree, memoryId };
}
