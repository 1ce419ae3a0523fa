/**
 * memledger keys: per-item data keys for erasure by crypto-shredding. The port
 * ({@link KeyStore}), its embedded SQLite implementation, the master key that wraps the data
 * keys, and the sealing of content fields with a data key.
 */
import { existsSync } from 'node:fs';
import { MemoryError, isMemoryError } from '../core/index.js';
import type { KeyStore } from './key-store.port.js';
import { loadMasterKey } from './master-key.js';
import { openSqliteKeyStore } from './sqlite-key-store.js';

export type { ItemKey, KeyStore, PendingCleanup, PendingErasure } from './key-store.port.js';
export {
  KEY_BYTES,
  loadMasterKey,
  masterKeyFromBytes,
  type LoadMasterKeyOptions,
  type MasterKey,
} from './master-key.js';
export { openSqliteKeyStore, type SqliteKeyStoreOptions } from './sqlite-key-store.js';
export { openText, sealText } from './content-seal.js';

/** Options of {@link openKeyStoreBeside}. */
export interface KeyStoreBesideOptions {
  /** Create the key store and the master key file when they are missing (first start). */
  readonly create: boolean;
}

/**
 * The key store of the event database at `databasePath`: the file `MEMLEDGER_KEY_STORE` or else
 * `<databasePath>.keys`, opened with the master key `MEMLEDGER_MASTER_KEY` or else the key file
 * `MEMLEDGER_MASTER_KEY_FILE` or `<databasePath>.master-key`. A new master key file is created
 * only together with a new key store: a key store whose key file is gone is `KEY_STORE_MISSING`,
 * never opened with a fresh key.
 */
export function openKeyStoreBeside(
  databasePath: string,
  env: NodeJS.ProcessEnv,
  options: KeyStoreBesideOptions,
): KeyStore {
  const storePath = keyStorePathBeside(databasePath, env);
  const storeExists = existsSync(storePath);
  // The key store is the thing to restore; a missing key file alone would be the lesser news.
  if (!storeExists && !options.create)
    throw new MemoryError(
      'KEY_STORE_MISSING',
      `The key store ${storePath} does not exist; restore it from a backup (without it, encrypted content cannot be read).`,
      { details: { path: storePath } },
    );
  const masterKey = (() => {
    const envKey = env.MEMLEDGER_MASTER_KEY;
    if (envKey !== undefined) return loadMasterKey({ env: envKey, keyFile: '', create: false });
    const keyFile =
      nonEmpty(env.MEMLEDGER_MASTER_KEY_FILE) ?? besidePath(databasePath, '.master-key');
    try {
      return loadMasterKey({ keyFile, create: options.create && !storeExists });
    } catch (error) {
      if (!storeExists || !isMemoryError(error, 'KEY_STORE_MISSING')) throw error;
      throw new MemoryError(
        'KEY_STORE_MISSING',
        `The key store ${storePath} exists but its master key file ${keyFile} does not; ` +
          'restore the key file from a backup or set MEMLEDGER_MASTER_KEY.',
        { details: { path: storePath, keyFile }, cause: error },
      );
    }
  })();
  return openSqliteKeyStore(storePath, { masterKey, create: options.create });
}

/** Where {@link openKeyStoreBeside} looks for the key store of `databasePath`. */
export function keyStorePathBeside(databasePath: string, env: NodeJS.ProcessEnv): string {
  return nonEmpty(env.MEMLEDGER_KEY_STORE) ?? besidePath(databasePath, '.keys');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function besidePath(databasePath: string, suffix: string): string {
  if (databasePath === ':memory:' || databasePath === '')
    throw new MemoryError(
      'KEY_STORE_MISSING',
      `An in-memory database has no place beside it for ${suffix === '.keys' ? 'a key store' : 'a master key file'}; ` +
        `set ${suffix === '.keys' ? 'MEMLEDGER_KEY_STORE' : 'MEMLEDGER_MASTER_KEY or MEMLEDGER_MASTER_KEY_FILE'}.`,
    );
  return `${databasePath}${suffix}`;
}
