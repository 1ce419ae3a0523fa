/**
 * The key store's file (src/db/sqlite-file.ts): created 0600 before SQLite opens it,
 * `synchronous = FULL`, and its layout and master key checked before anything is written.
 */
import { MemoryError } from '../core/index.js';
import { openSqliteFile, type SqliteFile } from '../db/sqlite-file.js';
import { walHoldsFrames } from '../db/wal-scrub.js';
import { prepareKeyStoreLayout } from './sqlite-key-store.schema.js';
import type { SqliteKeyStoreOptions } from './sqlite-key-store.js';

/** What the file is, in messages. */
export const KEY_STORE_ROLE = 'key store';

/** Opens (with `create`, creates) the key store's file; a wrong master key writes nothing. */
export function openKeyStoreFile(path: string, options: SqliteKeyStoreOptions): SqliteFile {
  const file = openSqliteFile({
    path,
    role: KEY_STORE_ROLE,
    synchronous: 'FULL',
    mode: 0o600,
    notADatabase: 'KEY_STORE_LOCKED',
    // A wrong master key must leave the files byte for byte as they were: scrub after the check.
    scrubOnOpen: false,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    ...(options.create ? {} : { mustExist: () => missing(path) }),
  });
  try {
    file.run('open', () => prepareKeyStoreLayout(file.db, path, options.masterKey, options.create));
  } catch (error) {
    file.close();
    throw error;
  }
  if (walHoldsFrames(path)) file.wal.request();
  return file;
}

function missing(path: string): MemoryError {
  return new MemoryError(
    'KEY_STORE_MISSING',
    `The key store ${path} does not exist; restore it from a backup (without it, encrypted content cannot be read).`,
    { details: { path } },
  );
}
