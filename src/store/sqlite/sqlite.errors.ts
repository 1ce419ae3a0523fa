/** The SQLite store's translation of driver errors into memledger's typed errors. */
import { MemoryError } from '../../core/index.js';

/** Maps better-sqlite3 errors to memledger codes; memledger's own errors pass through. */
export function translateSqliteError(error: unknown, what: string, path: string): Error {
  if (error instanceof MemoryError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_CANTOPEN') {
    return new MemoryError(
      'STORE_UNAVAILABLE',
      `SQLite file ${path} is unavailable for ${what} (${String(code)}).`,
      { cause: error },
    );
  }
  return new MemoryError(
    'STORE_FAILED',
    `SQLite ${what} on ${path} failed: ${(error as Error).message}`,
    { cause: error },
  );
}
