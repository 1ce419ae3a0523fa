/**
 * The embedded key store: one SQLite file (WAL, `synchronous = FULL`, `secure_delete = ON`,
 * mode 0600) holding each item's data key wrapped by the master key. Several processes may
 * share the file; each keeps a small cache of unwrapped keys that it drops whenever another
 * connection commits.
 */
import { randomFillSync } from 'node:crypto';
import { MemoryError, MemoryId, parseOrThrow } from '../core/index.js';
import { CommitGroups } from '../db/group-commit.js';
import { truncateWal } from '../db/wal-scrub.js';
import type { ItemKey, KeyStore, PendingCleanup, PendingErasure } from './key-store.port.js';
import { KEY_BYTES, type MasterKey } from './master-key.js';
import { translateSqliteError } from '../db/sqlite-file.js';
import { KEY_STORE_ROLE, openKeyStoreFile } from './sqlite-key-store.file.js';
import { prepareStatements } from './sqlite-key-store.statements.js';
import { KeyCache } from './key-cache.js';

/** Options of {@link openSqliteKeyStore}. */
export interface SqliteKeyStoreOptions {
  /** Wraps the data keys; must be the key the store was created with. */
  readonly masterKey: MasterKey;
  /** Create the file when it is missing (else `KEY_STORE_MISSING`). */
  readonly create: boolean;
  /** How long to wait for another process's lock. @defaultValue 5000 */
  readonly busyTimeoutMs?: number;
  /** The clock of tombstones and intents. @defaultValue `() => new Date()` */
  readonly now?: () => Date;
  /** Unwrapped keys kept in memory (0 turns the cache off). @defaultValue 4096 */
  readonly cacheSize?: number;
}

/** Opens (or with `create`, creates) the SQLite key store at `path`. */
export function openSqliteKeyStore(path: string, options: SqliteKeyStoreOptions): KeyStore {
  const { masterKey } = options;
  const now = options.now ?? (() => new Date());
  const description = `SQLite key store ${path}`;
  const file = openKeyStoreFile(path, options);
  const { db, wal } = file;
  const site = (what: string) => ({ what, role: KEY_STORE_ROLE, path });
  const sql = prepareStatements(db);
  const cache = new KeyCache(options.cacheSize ?? 4096);
  // New keys of concurrent appends share one commit (one fsync), as the log's appends do.
  const groups = new CommitGroups(db);
  let closed = false;

  const checkOpen = (what: string) => {
    if (closed) throw new MemoryError('STORE_CLOSED', `The ${description} is closed (${what}).`);
  };
  const run = <T>(what: string, work: () => T): T => {
    checkOpen(what);
    try {
      return work();
    } catch (error) {
      throw translateSqliteError(error, site(what), 'KEY_STORE_LOCKED');
    }
  };
  const aadOf = (memoryId: string, itemId: string) => `${memoryId}/${itemId}`;
  /** The committed state of one key; reads through the cache, which the caller synced. */
  const stateOf = (memoryId: string, itemId: string): ItemKey | undefined => {
    const aad = aadOf(memoryId, itemId);
    const cached = cache.get(aad);
    if (cached !== undefined) return cached;
    if (sql.erasedBy.get(memoryId, itemId) !== undefined) return cache.set(aad, 'erased');
    const wrapped = sql.wrappedKey.get(memoryId, itemId);
    if (wrapped === undefined) return undefined;
    try {
      return cache.set(aad, masterKey.unwrap(wrapped, aad));
    } catch (error) {
      throw new MemoryError(
        'KEY_STORE_LOCKED',
        `The key of item ${itemId} in memory ${memoryId} at ${path} does not open with the master key ${masterKey.fingerprint}; the row was altered or moved.`,
        { details: { path, memoryId, itemId }, cause: error },
      );
    }
  };
  // PRAGMA data_version changes when another connection commits; read inside the transaction.
  const syncCache = () => cache.sync(sql.dataVersion.get()!);

  const keysForTx = db.transaction((memoryId: string, itemIds: readonly string[]) => {
    syncCache();
    const keys = new Map<string, Buffer>();
    const created: [string, Buffer][] = [];
    for (const itemId of itemIds) {
      if (keys.has(itemId)) continue;
      const state = stateOf(memoryId, itemId);
      if (state === 'erased') throw alreadyErased(memoryId, itemId);
      if (state !== undefined) {
        keys.set(itemId, Buffer.from(state));
        continue;
      }
      const key = randomFillSync(Buffer.alloc(KEY_BYTES));
      sql.insertKey.run(memoryId, itemId, masterKey.wrap(key, aadOf(memoryId, itemId)));
      created.push([itemId, key]);
      keys.set(itemId, Buffer.from(key));
    }
    return { keys, created };
  });

  const lookupTx = db.transaction((memoryId: string, itemIds: readonly string[]) => {
    syncCache();
    const states = new Map<string, ItemKey>();
    for (const itemId of itemIds) {
      const state = stateOf(memoryId, itemId);
      if (state !== undefined) states.set(itemId, state === 'erased' ? state : Buffer.from(state));
    }
    return states;
  });

  const beginTx = db.transaction(
    (memoryId: string, erasureId: string, targets: readonly string[]) => {
      const stored = sql.pendingTargets.get(memoryId, erasureId);
      const json = JSON.stringify([...new Set(targets)].sort());
      if (stored !== undefined) {
        if (stored === json) return;
        throw new MemoryError(
          'ID_CONFLICT',
          `Erasure ${erasureId} was begun in memory ${memoryId} with other targets.`,
          { details: { memoryId, erasureId } },
        );
      }
      const erasedByThis = targets.filter(
        (t) => sql.erasedBy.get(memoryId, t) === erasureId,
      ).length;
      // Beginning an erasure that already completed (a retry after a crash) is a no-op.
      if (erasedByThis === targets.length) return;
      for (const target of targets) {
        if (sql.erasedBy.get(memoryId, target) !== undefined) throw alreadyErased(memoryId, target);
        if (sql.wrappedKey.get(memoryId, target) === undefined)
          throw new MemoryError(
            'ERASURE_UNAVAILABLE',
            `Item ${target} in memory ${memoryId} has no key: it is stored in plain text and cannot be erased.`,
            { details: { memoryId, itemId: target, path } },
          );
      }
      sql.insertPending.run(memoryId, erasureId, json, now().toISOString());
    },
  );

  const completeTx = db.transaction((memoryId: string, erasureId: string) => {
    const stored = sql.pendingTargets.get(memoryId, erasureId);
    if (stored === undefined) {
      if (sql.anyErasedBy.get(memoryId, erasureId) !== undefined) return [];
      throw new MemoryError(
        'STORE_FAILED',
        `Erasure ${erasureId} of memory ${memoryId} was never begun in ${path}; begin it before completing it.`,
        { details: { memoryId, erasureId, path } },
      );
    }
    const targets = parseTargets(stored);
    const at = now().toISOString();
    for (const target of targets) {
      // secure_delete zeroes the freed cell, so the wrapped key leaves the page too.
      sql.deleteKey.run(memoryId, target);
      sql.insertErased.run(memoryId, target, erasureId, at);
    }
    sql.deletePending.run(memoryId, erasureId);
    // Older page images (this file's and the store's) still hold the key and the words.
    sql.insertCleanup.run(memoryId, erasureId, at);
    return targets;
  });

  const completeCleanupsTx = db.transaction(
    (cleanups: readonly Pick<PendingCleanup, 'memoryId' | 'erasureId'>[]) => {
      for (const { memoryId, erasureId } of cleanups) sql.deleteCleanup.run(memoryId, erasureId);
    },
  );

  return {
    description,
    path,
    wal,
    async keysFor(memoryId, itemIds) {
      checkIds(memoryId, itemIds);
      checkOpen('keysFor');
      let made: { keys: Map<string, Buffer>; created: [string, Buffer][] };
      try {
        made = await groups.submit(() => keysForTx(memoryId, itemIds));
      } catch (error) {
        // A request later in a group can read (and cache) a key an earlier one created; if the
        // group then failed as a whole, that key was never stored: forget every cached key.
        cache.clear();
        throw translateSqliteError(error, site('keysFor'), 'KEY_STORE_LOCKED');
      }
      // Cached only once committed: a batch that threw rolled back the keys it made.
      for (const [itemId, key] of made.created) cache.set(aadOf(memoryId, itemId), key);
      return made.keys;
    },
    lookup(memoryId, itemIds) {
      checkIds(memoryId, itemIds);
      return run('lookup', () => lookupTx.deferred(memoryId, itemIds));
    },
    beginErasure(memoryId, erasureId, targets) {
      checkIds(memoryId, [erasureId, ...targets]);
      if (targets.length === 0)
        throw new MemoryError('VALIDATION_FAILED', `Erasure ${erasureId} names no target.`);
      run('beginErasure', () => beginTx.immediate(memoryId, erasureId, targets));
    },
    completeErasure(memoryId, erasureId) {
      checkIds(memoryId, [erasureId]);
      run('completeErasure', () => {
        const targets = completeTx.immediate(memoryId, erasureId);
        for (const target of targets) cache.set(aadOf(memoryId, target), 'erased');
        // Old page images of this file still hold the keys: scrubbed now, or retried.
        wal.request();
      });
    },
    pendingCleanups() {
      return run('pendingCleanups', () =>
        sql.allCleanups.all().map((row): PendingCleanup => ({
          memoryId: row.memory,
          erasureId: row.erasure_id,
          since: row.since,
        })),
      );
    },
    completeCleanups(cleanups) {
      if (cleanups.length === 0) return;
      run('completeCleanups', () => completeCleanupsTx.immediate(cleanups));
    },
    abandonErasure(memoryId, erasureId) {
      checkIds(memoryId, [erasureId]);
      run('abandonErasure', () => sql.deletePending.run(memoryId, erasureId));
    },
    pendingErasures() {
      return run('pendingErasures', () =>
        sql.allPending.all().map((row): PendingErasure => ({
          memoryId: row.memory,
          erasureId: row.erasure_id,
          targets: parseTargets(row.targets),
          since: row.since,
        })),
      );
    },
    close() {
      if (closed) return;
      try {
        // Keys already asked for are committed (and handed over) before the connection goes.
        groups.flush();
      } finally {
        closed = true;
      }
      cache.clear();
      try {
        // Never waits: a reader's snapshot leaves the WAL to the next open's scrub.
        truncateWal(db);
      } finally {
        file.close();
      }
    },
  };
}

function checkIds(memoryId: string, ids: readonly string[]): void {
  parseOrThrow(MemoryId, memoryId, `memory id ${JSON.stringify(memoryId)}`, 'INVALID_MEMORY_ID');
  for (const id of ids)
    if (typeof id !== 'string' || id.length === 0)
      throw new MemoryError(
        'VALIDATION_FAILED',
        `Item id ${JSON.stringify(id)} must be a non-empty string.`,
      );
}

function parseTargets(json: string): string[] {
  return JSON.parse(json) as string[];
}

function alreadyErased(memoryId: string, itemId: string): MemoryError {
  return new MemoryError(
    'ALREADY_ERASED',
    `Item ${itemId} in memory ${memoryId} was already erased: its key is destroyed.`,
    { details: { memoryId, itemId } },
  );
}
