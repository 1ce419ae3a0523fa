/**
 * Every SQLite connection memledger opens keeps temporary tables in memory: no temp file holds
 * what a query collects or sorts (words an erasure's scrub would not reach), and an `IN (SELECT
 * … FROM json_each(?))` list inside a write transaction opens no file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openConnection } from '../../src/db/better-sqlite3.js';
import { openSqliteFile } from '../../src/db/sqlite-file.js';

/** SQLite's `temp_store` value for MEMORY. */
const MEMORY = 2;
const tempStore = (db: Database.Database) => db.pragma('temp_store', { simple: true });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-connection-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite connections', () => {
  it('keep temporary tables in memory in a memledger file, read-write or read-only', () => {
    const path = join(dir, 'file.db');
    const file = openSqliteFile({ path, role: 'test file', synchronous: 'NORMAL' });
    const reader = openConnection(path, { readonly: true, fileMustExist: true });
    try {
      expect(tempStore(file.db)).toBe(MEMORY);
      expect(tempStore(reader)).toBe(MEMORY);
    } finally {
      reader.close();
      file.close();
    }
  });

  it('keep temporary tables in memory in a private in-memory database', () => {
    const db = openConnection(':memory:');
    try {
      expect(tempStore(db)).toBe(MEMORY);
    } finally {
      db.close();
    }
  });
});
