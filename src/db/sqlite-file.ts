/**
 * One SQLite file of memledger's, opened one way: the event store's file, the key store, the
 * EventStoreDB id index and the local projection file all come through here. WAL journaling,
 * the synchronous level the file's role needs, a busy timeout for other processes' locks,
 * `secure_delete` (freed pages are zeroed, so nothing dropped leaves a trace), the folder
 * created when missing, driver errors translated, and the file's WAL scrubbed before it serves
 * when a crash left frames behind (src/db/wal-scrub.ts).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { MemoryError, type MemoryErrorCode } from '../core/index.js';
import { openConnection } from './better-sqlite3.js';
import { walHoldsFrames, WalScrubber } from './wal-scrub.js';

/** Options of {@link openSqliteFile}. */
export interface SqliteFileOptions {
  /** The file; `:memory:` for a private in-memory database. */
  readonly path: string;
  /** What the file is, for messages: e.g. `SQLite store`, `key store`, `projection file`. */
  readonly role: string;
  /**
   * `FULL` for a record (an acknowledged write survives power loss), `NORMAL` for derived data a
   * lost commit only makes the next catch-up apply again.
   */
  readonly synchronous: 'FULL' | 'NORMAL';
  /** How long a write waits for another process's lock. @defaultValue 5000 */
  readonly busyTimeoutMs?: number;
  /**
   * Create a missing file with these permission bits before SQLite opens it, and keep its
   * `-wal`/`-shm` to them (the key store: 0o600). @defaultValue the umask's
   */
  readonly mode?: number;
  /** Refuse a missing file with this error instead of creating one. */
  readonly mustExist?: () => MemoryError;
  /** The code of a file that is not a SQLite database. @defaultValue 'STORE_FAILED' */
  readonly notADatabase?: MemoryErrorCode;
  /**
   * Scrub a WAL that holds frames at once; false leaves it to the caller, to run once it has
   * checked the file is its own (the key store first checks its master key). @defaultValue true
   */
  readonly scrubOnOpen?: boolean;
}

/** An open SQLite file. */
export interface SqliteFile {
  readonly db: Database.Database;
  readonly path: string;
  readonly role: string;
  /** Its write-ahead log's scrubs (after an erasure, and on open when frames were left). */
  readonly wal: WalScrubber;
  /** Runs `work`, translating driver errors into memledger codes (what names the operation). */
  run<T>(what: string, work: () => T): T;
  /** Stops the scrub retries and closes the connection. Idempotent. */
  close(): void;
}

/** Opens (creating when needed, unless `mustExist`) a memledger SQLite file. */
export function openSqliteFile(options: SqliteFileOptions): SqliteFile {
  const { path, role } = options;
  const inMemory = path === ':memory:' || path === '';
  let db: Database.Database | undefined;
  try {
    if (!inMemory) createFile(options);
    db = openConnection(path, {
      fileMustExist: !inMemory && options.mustExist !== undefined,
    });
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma('secure_delete = ON');
    if (options.mode !== undefined && !inMemory) restrictModes(path, options.mode);
  } catch (error) {
    db?.close();
    throw translateSqliteError(error, { what: 'open', role, path }, options.notADatabase);
  }
  const opened = db;
  const wal = new WalScrubber(opened, path);
  // A crash may have come between a commit that dropped words and its scrub: scrub first.
  if (options.scrubOnOpen !== false && walHoldsFrames(path)) wal.request();
  return {
    db: opened,
    path,
    role,
    wal,
    run(what, work) {
      if (!opened.open)
        throw new MemoryError('STORE_CLOSED', `The ${role} ${path} is closed (${what}).`);
      try {
        return work();
      } catch (error) {
        throw translateSqliteError(error, { what, role, path }, options.notADatabase);
      }
    },
    close() {
      wal.stop();
      if (opened.open) opened.close();
    },
  };
}

/** Where a driver error happened, for its message. */
export interface SqliteErrorSite {
  readonly what: string;
  readonly role: string;
  readonly path: string;
}

/**
 * Maps better-sqlite3 and file errors to memledger codes: a lock or an unopenable file is
 * `STORE_UNAVAILABLE` (retryable), a file that is no database `notADatabase`, anything else
 * `STORE_FAILED`; memledger's own errors pass through.
 */
export function translateSqliteError(
  error: unknown,
  site: SqliteErrorSite,
  notADatabase: MemoryErrorCode = 'STORE_FAILED',
): MemoryError {
  if (error instanceof MemoryError) return error as MemoryError;
  const code = (error as { code?: unknown }).code;
  const { what, role, path } = site;
  const details = { path, operation: what };
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_CANTOPEN')
    return new MemoryError(
      'STORE_UNAVAILABLE',
      `The ${role} ${path} is unavailable for ${what} (${String(code)}).`,
      { details, cause: error },
    );
  if (code === 'SQLITE_NOTADB')
    return new MemoryError(notADatabase, `The file ${path} is not a SQLite database (${role}).`, {
      details,
      cause: error,
    });
  return new MemoryError(
    'STORE_FAILED',
    `The ${role} ${path} failed in ${what}: ${(error as Error).message}`,
    { details, cause: error },
  );
}

/** The folder, and with `mode` the file itself, before SQLite opens it. */
function createFile(options: SqliteFileOptions): void {
  const { path } = options;
  if (existsSync(path)) return;
  if (options.mustExist) throw options.mustExist();
  mkdirSync(dirname(path), { recursive: true });
  if (options.mode === undefined) return;
  try {
    closeSync(openSync(path, 'wx', options.mode));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The -wal and -shm files take their mode from the umask on some systems: tighten all three. */
function restrictModes(path: string, mode: number): void {
  if (process.platform === 'win32') return;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * The layout version a file records under `key` in its metadata `table` (a `key`/`value`
 * table), or undefined for a file without one (new, or not memledger's).
 */
export function layoutVersionOf(
  db: Database.Database,
  table: string,
  key: string,
): string | undefined {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table);
  if (exists === undefined) return undefined;
  const value = db
    .prepare<[string], string | number | null>(`SELECT value FROM "${table}" WHERE key = ?`)
    .pluck()
    .get(key);
  return value === undefined || value === null ? undefined : String(value);
}
