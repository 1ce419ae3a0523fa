/**
 * The tables every projection file holds besides the projections' own: the layout version
 * each projection's tables were built in, where a layout's tables carry a suffix (one built
 * beside another, layout-upgrade.ts), and the integer key of each memory (projections key their
 * rows by it: 8 bytes, not the memory id's text, in every row).
 */
import type Database from 'better-sqlite3';
import { AssignedKeys } from '../db/transactions.js';

const TABLES = `
CREATE TABLE IF NOT EXISTS projection_versions (
  name    TEXT    PRIMARY KEY,
  version INTEGER NOT NULL
) STRICT;
-- The serving layout of each projection and the one being built beside it, with the names its
-- tables have in the file (JSON), so a later release drops them without knowing its code. A
-- projection without a serving row (a file older than this table) has its tables' own names.
CREATE TABLE IF NOT EXISTS projection_layouts (
  name    TEXT    NOT NULL,
  role    TEXT    NOT NULL CHECK (role IN ('serving', 'building')),
  version INTEGER NOT NULL,
  suffix  TEXT    NOT NULL,
  tables  TEXT    NOT NULL,
  PRIMARY KEY (name, role)
) STRICT;
CREATE TABLE IF NOT EXISTS projection_memories (
  mem       INTEGER PRIMARY KEY,
  memory_id TEXT    NOT NULL UNIQUE
) STRICT;
`;

/** The recorded layout version of each projection. */
export class ProjectionVersions {
  private readonly read: Database.Statement<[string], number>;
  private readonly write: Database.Statement<[string, number]>;

  constructor(db: Database.Database) {
    db.exec(TABLES);
    this.read = db
      .prepare<[string], number>('SELECT version FROM projection_versions WHERE name = ?')
      .pluck();
    this.write = db.prepare<[string, number]>(
      'INSERT OR REPLACE INTO projection_versions (name, version) VALUES (?, ?)',
    );
  }

  /** The version a projection's tables were built in, or undefined when it has none yet. */
  recorded(name: string): number | undefined {
    return this.read.get(name);
  }

  /** Records the version its tables are built in now (inside the caller's transaction). */
  record(name: string, version: number): void {
    this.write.run(name, version);
  }
}

/** A layout of a projection: the suffix its tables' names carry, and those names. */
export interface Layout {
  readonly version: number;
  readonly suffix: string;
  /** Its tables, views and indexes as named in the file. */
  readonly tables: readonly string[];
}

/** The layout of a projection in a role (serving, or building beside the serving one). */
export type LayoutRole = 'serving' | 'building';

/** The serving and building layouts of each projection. */
export class ProjectionLayouts {
  private readonly read: Database.Statement<
    [string, LayoutRole],
    { version: number; suffix: string; tables: string }
  >;
  private readonly write: Database.Statement<[string, LayoutRole, number, string, string]>;
  private readonly remove: Database.Statement<[string, LayoutRole]>;

  constructor(db: Database.Database) {
    db.exec(TABLES);
    this.read = db.prepare(
      'SELECT version, suffix, tables FROM projection_layouts WHERE name = ? AND role = ?',
    );
    this.write = db.prepare(
      `INSERT OR REPLACE INTO projection_layouts (name, role, version, suffix, tables)
         VALUES (?, ?, ?, ?, ?)`,
    );
    this.remove = db.prepare('DELETE FROM projection_layouts WHERE name = ? AND role = ?');
  }

  /** The layout of `name` in `role`, if the file records one. */
  get(name: string, role: LayoutRole): Layout | undefined {
    const row = this.read.get(name, role);
    return row && { ...row, tables: JSON.parse(row.tables) as string[] };
  }

  /** The suffix of the serving layout's tables ('' without a record). */
  servingSuffix(name: string): string {
    return this.read.get(name, 'serving')?.suffix ?? '';
  }

  /** Records a layout in a role, or none (inside the caller's transaction). */
  set(name: string, role: LayoutRole, layout: Layout | undefined): void {
    if (layout === undefined) this.remove.run(name, role);
    else this.write.run(name, role, layout.version, layout.suffix, JSON.stringify(layout.tables));
  }
}

/** `projection`'s layout `version` with its tables' names given `suffix`. */
export function layoutOf(
  projection: { readonly version: number; readonly tables: readonly string[] },
  suffix: string,
): Layout {
  return {
    version: projection.version,
    suffix,
    tables: projection.tables.map((table) => table + suffix),
  };
}

/**
 * The tables to drop where `projection`'s layout recorded as `recorded` goes: those recorded,
 * and those its code names under `suffix` (a layout recorded by code that declared none).
 */
export function tablesOf(
  recorded: Layout | undefined,
  projection: { readonly version: number; readonly tables: readonly string[] },
  suffix: string,
): string[] {
  return [...new Set([...(recorded?.tables ?? []), ...layoutOf(projection, suffix).tables])];
}

/** Memory ids and their keys, remembered while no rollback may have undone one. */
export class MemoryKeys {
  private readonly cache: AssignedKeys<string, number>;
  private readonly find: Database.Statement<[string], number>;
  private readonly insert: Database.Statement<[string]>;

  constructor(db: Database.Database) {
    db.exec(TABLES);
    this.cache = new AssignedKeys(db);
    this.find = db
      .prepare<[string], number>('SELECT mem FROM projection_memories WHERE memory_id = ?')
      .pluck();
    this.insert = db.prepare<[string]>(
      'INSERT OR IGNORE INTO projection_memories (memory_id) VALUES (?)',
    );
  }

  /** The memory's key, or undefined while it has none. */
  existing(memoryId: string): number | undefined {
    return this.cache.of(memoryId, () => this.find.get(memoryId));
  }

  /** The memory's key, created when it has none (a write: call it in a transaction). */
  keyOf(memoryId: string): number {
    return this.cache.of(memoryId, () => {
      this.insert.run(memoryId);
      return this.find.get(memoryId);
    })!;
  }
}
