/**
 * The key store's file: created 0600 before SQLite opens it, opened with `secure_delete` and
 * `synchronous = FULL`, and its driver errors translated to memledger codes.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MemoryError } from '../core/index.js';
import { prepareKeyStoreLayout } from './sqlite-key-store.schema.js';
import type { SqliteKeyStoreOptions } from './sqlite-key-store.js';

/** Creates the file 0600 before SQLite does, so the keys are never readable by others. */
export function openDatabase(path: string, options: SqliteKeyStoreOptions): Database.Database {
  // A private in-memory key store (tests, ephemeral runs): no file to create or protect.
  const inMemory = path === ':memory:';
  if (!inMemory && !existsSync(path)) {
    if (!options.create)
      throw new MemoryError(
        'KEY_STORE_MISSING',
        `The key store ${path} does not exist; restore it from a backup (without it, encrypted content cannot be read).`,
        { details: { path } },
      );
    mkdirSync(dirname(path), { recursive: true });
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw translateSqliteError(error, 'create', path);
    }
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: !inMemory });
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('secure_delete = ON');
    db.pragma('synchronous = FULL');
    prepareKeyStoreLayout(db, path, options.masterKey, options.create);
    if (!inMemory) restrictModes(path);
    return db;
  } catch (error) {
    db?.close();
    throw translateSqliteError(error, 'open', path);
  }
}

/** The -wal and -shm files take their mode from the umask on some systems: tighten all three. */
function restrictModes(path: string): void {
  if (process.platform === 'win32') return;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Maps better-sqlite3 and file errors to memledger codes; memledger's own errors pass through. */
export function translateSqliteError(error: unknown, what: string, path: string): Error {
  if (error instanceof MemoryError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB')
    return new MemoryError(
      'KEY_STORE_LOCKED',
      `The file ${path} is not a memledger key store (not a SQLite database).`,
      { details: { path }, cause: error },
    );
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_CANTOPEN')
    return new MemoryError(
      'STORE_UNAVAILABLE',
      `The key store ${path} is unavailable for ${what} (${String(code)}).`,
      { details: { path }, cause: error },
    );
  return new MemoryError(
    'STORE_FAILED',
    `The key store ${path} failed in ${what}: ${(error as Error).message}`,
    { details: { path }, cause: error },
  );
}
