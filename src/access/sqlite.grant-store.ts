/**
 * The grant store in the store's own SQLite file (`MEMLEDGER_DB`), on a connection of its own.
 * Another process's grants and revocations are seen through `PRAGMA data_version`, polled every
 * `pollMs`: a revocation made anywhere reaches every instance on the file within that time.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openConnection } from '../db/better-sqlite3.js';
import { MemoryError, RecordedBy } from '../core/index.js';
import { newKeyId, newKeySecret, secretDigest } from './access-key.js';
import { GrantIndex } from './grant-index.js';
import {
  NewKey,
  type AccessKey,
  type CreatedKey,
  type GrantRecord,
  type GrantStore,
} from './grant-store.port.js';
import { MemoryPatterns } from './memory-pattern.js';
import { Rights } from './rights.js';
import {
  ACCESS_TABLES,
  CREATE_ACCESS_TABLES,
  type GrantRow,
  type RevocationRow,
} from './sqlite.grant-store.schema.js';
import { parseOrThrow } from '../core/index.js';

/** Options of {@link openSqliteGrantStore}. */
export interface SqliteGrantStoreOptions {
  /** The store's SQLite file (created with its folder when missing), or `:memory:`. */
  readonly path: string;
  /** How often to look for another process's changes. @defaultValue 250 */
  readonly pollMs?: number;
}

/** Opens the grant store in `options.path`, creating its tables when missing. */
export function openSqliteGrantStore(options: SqliteGrantStoreOptions): GrantStore {
  const { path } = options;
  const where = `SQLite ${path}`;
  const db = guarded('open', path, () => openDatabase(path));
  const index = new GrantIndex();
  const grantsAfter = db.prepare<[number], GrantRow>(
    'SELECT * FROM access_grants WHERE seq > ? ORDER BY seq',
  );
  const revocationsAfter = db.prepare<[number], RevocationRow>(
    'SELECT * FROM access_revocations WHERE seq > ? ORDER BY seq',
  );
  const insertGrant = db.prepare(
    `INSERT INTO access_grants (key_id, principal, memories, rights, secret_sha256, created_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertRevocation = db.prepare(
    'INSERT OR IGNORE INTO access_revocations (key_id, revoked_at, revoked_by) VALUES (?, ?, ?)',
  );
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let lastGrant = 0;
  let lastRevocation = 0;
  let seenVersion = -1;
  let closed = false;
  const refresh = () => {
    for (const row of grantsAfter.all(lastGrant)) {
      lastGrant = row.seq;
      const record = grantOfRow(row);
      if (record) index.grant(record);
    }
    for (const row of revocationsAfter.all(lastRevocation)) {
      lastRevocation = row.seq;
      index.revoke({
        keyId: row.key_id,
        revokedAt: row.revoked_at,
        revokedBy: byOf(row.revoked_by),
      });
    }
  };
  const poll = () => {
    if (closed) return;
    guarded('read', path, () => {
      const version = dataVersion.get()!;
      if (version === seenVersion) return;
      seenVersion = version;
      refresh();
    });
  };
  poll();
  const timer = setInterval(() => {
    try {
      poll();
    } catch {
      // A busy or briefly unavailable file is read again on the next tick.
    }
  }, options.pollMs ?? 250);
  timer.unref();
  return {
    description: where,
    ready: async () => undefined,
    async create(input: NewKey, by: RecordedBy): Promise<CreatedKey> {
      const checked = parseOrThrow(NewKey, input, 'access key');
      const secret = newKeySecret();
      const id = newKeyId();
      const createdAt = new Date().toISOString();
      guarded('grant', path, () => {
        insertGrant.run(
          id,
          checked.principal,
          JSON.stringify(checked.memories),
          JSON.stringify(checked.rights),
          secretDigest(secret),
          createdAt,
          by === null ? null : JSON.stringify(by),
        );
        refresh();
      });
      return { key: index.require(id, where), secret };
    },
    async revoke(keyId: string, by: RecordedBy): Promise<AccessKey> {
      guarded('revoke', path, () => {
        refresh();
        index.require(keyId, where);
        insertRevocation.run(
          keyId,
          new Date().toISOString(),
          by === null ? null : JSON.stringify(by),
        );
        refresh();
      });
      return index.require(keyId, where);
    },
    keys: () => index.keys(),
    keyOfSecret: (secret) => index.keyOfSecret(secret),
    get everGranted() {
      return index.everGranted;
    },
    onRevoked: (listener) => index.onRevoked(listener),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      db.close();
    },
  };
}

/** Opens the file on a connection of its own and creates the tables when missing. */
function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openConnection(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    const present = db
      .prepare<[], string>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${ACCESS_TABLES.map((t) => `'${t}'`).join(', ')})`,
      )
      .pluck()
      .all();
    // Only a file without them takes the write lock.
    if (present.length < ACCESS_TABLES.length) {
      db.transaction(() => db.exec(CREATE_ACCESS_TABLES)).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A grant row as a record; a row that does not parse (written by hand, say) grants nothing.
 */
function grantOfRow(row: GrantRow): GrantRecord | undefined {
  try {
    const memories = MemoryPatterns.parse(JSON.parse(row.memories));
    const rights = Rights.parse(JSON.parse(row.rights));
    const principal = NewKey.shape.principal.parse(row.principal);
    return {
      key: {
        id: row.key_id,
        principal,
        memories,
        rights,
        createdAt: row.created_at,
        createdBy: byOf(row.created_by),
      },
      secretSha256: row.secret_sha256,
    };
  } catch {
    return undefined;
  }
}

/** A stored `recordedBy` (JSON or NULL); anything unreadable names nobody. */
function byOf(text: string | null): RecordedBy {
  if (text === null) return null;
  try {
    return RecordedBy.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Runs `work`, translating driver errors into memledger's. */
function guarded<T>(what: string, path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof MemoryError) throw error;
    const code = (error as { code?: unknown }).code;
    const busy = code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_CANTOPEN';
    throw new MemoryError(
      busy ? 'STORE_UNAVAILABLE' : 'STORE_FAILED',
      `Access ${what} on SQLite ${path} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
