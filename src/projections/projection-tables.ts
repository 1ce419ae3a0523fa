/**
 * The two tables every projection file holds besides the projections' own: the layout version
 * each projection's tables were built in, and the integer key of each memory (projections key
 * their rows by it: 8 bytes, not the memory id's text, in every row).
 */
import type Database from 'better-sqlite3';

const TABLES = `
CREATE TABLE IF NOT EXISTS projection_versions (
  name    TEXT    PRIMARY KEY,
  version INTEGER NOT NULL
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

/** Memory ids and their keys, cached: a key never changes once given. */
export class MemoryKeys {
  private readonly cache = new Map<string, number>();
  private readonly find: Database.Statement<[string], number>;
  private readonly insert: Database.Statement<[string]>;

  constructor(db: Database.Database) {
    db.exec(TABLES);
    this.find = db
      .prepare<[string], number>('SELECT mem FROM projection_memories WHERE memory_id = ?')
      .pluck();
    this.insert = db.prepare<[string]>(
      'INSERT OR IGNORE INTO projection_memories (memory_id) VALUES (?)',
    );
  }

  /** The memory's key, or undefined while it has none. */
  existing(memoryId: string): number | undefined {
    const key = this.cache.get(memoryId) ?? this.find.get(memoryId);
    if (key !== undefined) this.cache.set(memoryId, key);
    return key;
  }

  /** The memory's key, created when it has none (a write: call it in a transaction). */
  keyOf(memoryId: string): number {
    let key = this.cache.get(memoryId) ?? this.find.get(memoryId);
    if (key === undefined) {
      this.insert.run(memoryId);
      key = this.find.get(memoryId)!;
    }
    this.cache.set(memoryId, key);
    return key;
  }
}
