/**
 * Tampering with a SQLite store file as someone with write access would: the append-only
 * triggers dropped by hand, then the memory's rows of `event_log` rewritten to what a
 * {@link TamperCase} makes of them.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { StoredRow, TamperCase } from './tamper-history.js';

interface RawRow {
  seq: number;
  id: Buffer | string;
  type: string;
  version: number;
  payload: string;
}

const idText = (id: Buffer | string) =>
  typeof id === 'string'
    ? id
    : id.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const idKey = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');

/** A copy of the folder `from` (the store file, its key store and master key) at `to`. */
export function copyStore(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
}

/** The memory's stored rows, as a tamperer reads them. */
export function readRows(db: Database.Database, memoryId: string): StoredRow[] {
  const rows = db
    .prepare<[string], RawRow>(
      `SELECT e.seq, e.id, t.type, e.version, e.payload FROM event_log e
         JOIN memories m ON m.key = e.memory JOIN event_types t ON t.code = e.type
        WHERE m.memory_id = ? ORDER BY e.seq`,
    )
    .all(memoryId);
  return rows.map((row) => ({
    seq: row.seq,
    id: idText(row.id),
    type: row.type,
    version: row.version,
    body: JSON.parse(row.payload) as Record<string, unknown>,
  }));
}

/** Drops the triggers and writes the memory's rows as `tampering` makes them. */
export function tamperFile(path: string, memoryId: string, tampering: TamperCase): void {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = OFF');
    db.exec(`DROP TRIGGER event_log_append_only_update;
             DROP TRIGGER event_log_append_only_delete;`);
    const rows = tampering.tamper(readRows(db, memoryId));
    const memory = db
      .prepare<[string], number>('SELECT key FROM memories WHERE memory_id = ?')
      .pluck()
      .get(memoryId)!;
    const code = db
      .prepare<[string], number>('SELECT code FROM event_types WHERE type = ?')
      .pluck();
    db.transaction(() => {
      db.prepare('DELETE FROM event_log WHERE memory = ?').run(memory);
      const insert = db.prepare(
        'INSERT INTO event_log (memory, seq, id, type, version, payload) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const row of rows) {
        insert.run(
          memory,
          row.seq,
          idKey(row.id),
          code.get(row.type),
          row.version,
          JSON.stringify(row.body),
        );
      }
    })();
  } finally {
    db.close();
  }
}

/** The case folder's store file. */
export const storeFile = (dir: string) => join(dir, 'memledger.db');
