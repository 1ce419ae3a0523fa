/**
 * The SQLite store (better-sqlite3, WAL): the embedded default. Guard and insert run inside
 * `BEGIN IMMEDIATE`, which takes the file's write lock first, so several processes can append
 * to one file and each sees the others' events before deciding.
 */
import { MemoryError } from '../../core/index.js';
import { ChangeFeed } from '../change-notifier.js';
import type { ContentCodec } from '../content-codec.js';
import type { AppendHook, MemoryStore } from '../event-log.port.js';
import { checkMemoryId } from '../memory-id.js';
import type { ProjectedEvent } from '../projection.port.js';
import { decodeRow, typeOfCode } from './sqlite.codec.js';
import { CommitGroups } from '../../db/group-commit.js';
import { AssignedKeys } from '../../db/transactions.js';
import { openSqliteFile, translateSqliteError, type SqliteFile } from '../../db/sqlite-file.js';
import { prepareLayout } from './sqlite.migrate.js';
import { embeddedDatabase } from './sqlite.embedded.js';
import { sqliteLog, type SqliteContext } from './sqlite.memory-log.js';
import { prepareStatements, type EventRow } from './sqlite.statements.js';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; its folder is created when missing. `:memory:` for a private in-memory database. */
  readonly path: string;
  /**
   * `FULL`: an acknowledged append survives power loss. `NORMAL`: faster; it survives a crash
   * of the process but the last commits can be lost if the machine loses power.
   * @defaultValue 'FULL'
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * How often live subscriptions look for appends by other processes: one check of the file's
   * data version per store, only while a subscription waits. @defaultValue 100
   */
  readonly pollMs?: number;
  /** How long an append waits for another process's write lock. @defaultValue 5000 */
  readonly busyTimeoutMs?: number;
}

/** What every view of one open file shares (the store, and the store with a codec). */
type SqliteFileContext = Omit<SqliteContext, 'hooks' | 'runHook' | 'codec' | 'ready' | 'host'> & {
  readonly file: SqliteFile;
  readonly groups: CommitGroups;
  close(): void;
};

/** Opens (creating when needed) a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): MemoryStore {
  const file = openDatabase(options);
  const { db } = file;
  const site = (what: string) => ({ what, role: ROLE, path: options.path });
  const statements = prepareStatements(db);
  const typeOf = (code: number) => typeOfCode(code, (c) => statements.typeName.get(c));
  const decode = (row: EventRow, where: string) => decodeRow(row, typeOf(row.type), where);
  // `data_version` changes when another connection commits to the file: one pragma per tick.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  const changes = new ChangeFeed(options.pollMs ?? 100, () => {
    const version = dataVersion.get();
    if (version === seenVersion) return false;
    seenVersion = version;
    return true;
  });
  let closed = false;
  const run = <T>(what: string, work: () => T): T => {
    if (closed)
      throw new MemoryError('STORE_CLOSED', `The SQLite store ${options.path} is closed.`);
    try {
      return work();
    } catch (error) {
      throw translateSqliteError(error, site(what));
    }
  };
  const groups = new CommitGroups(db);
  const memoryKeys = new AssignedKeys<string, number>(db);
  // `run` for a write: the closed check now, the transaction with the next group commit.
  const commitInGroup = async <T>(what: string, work: () => T): Promise<T> => {
    const submitted = run(what, () => groups.submit(work));
    return submitted.catch((error: unknown) => {
      throw translateSqliteError(error, site(what));
    });
  };
  const shared: SqliteFileContext = {
    file,
    groups,
    statements,
    memoryKeys,
    typeOf,
    decode,
    run,
    commitInGroup,
    changes,
    isClosed: () => closed,
    path: options.path,
    close() {
      if (closed) return;
      // Appends already asked for are committed (and acknowledged) before the connection goes.
      try {
        groups.flush();
      } finally {
        closed = true;
        changes.close();
        file.close();
      }
    },
  };
  return sqliteStore(shared, undefined);
}

/** The store over an open file, with `codec` applied to every event it encodes and decodes. */
function sqliteStore(shared: SqliteFileContext, codec: ContentCodec | undefined): MemoryStore {
  const { statements, run, file } = shared;
  const hooks: AppendHook[] = [];
  const description = `SQLite ${shared.path}`;
  const files = [{ wal: file.wal, path: shared.path }];
  // The codec looks up stored events (to start, and for an Erasure's targets) without itself.
  const stored = codec && sqliteStore(shared, undefined);
  const host = {
    getStored: (memoryId: string, id: string) => (stored ?? store).log(memoryId).get(id),
    files,
  };
  const ready = codec?.start(host);
  const runHook = file.db.transaction(
    (hook: AppendHook, memoryId: string, written: readonly ProjectedEvent[]) =>
      hook(memoryId, written),
  );
  const context: SqliteContext = { ...shared, hooks, runHook, codec, ready, host };
  let codecClosed = false;
  const store: MemoryStore = {
    description: codec ? `${description}, ${codec.description}` : description,
    embedded: embeddedDatabase({ ...shared, db: file.db, wal: file.wal, hooks, codec }),
    log(memoryId) {
      const id = checkMemoryId(memoryId);
      return run('open memory', () => sqliteLog(id, context));
    },
    async memoryIds() {
      if (ready) await ready;
      return run('list memories', () => statements.memoryIds.all());
    },
    holdsSealedContent() {
      return Promise.resolve(run('look for sealed content', () => !!statements.anySealed.get()));
    },
    async close() {
      if (ready) await ready.catch(() => undefined);
      try {
        shared.close();
      } finally {
        if (codec && !codecClosed) {
          codecClosed = true;
          codec.close();
        }
      }
    },
  };
  return codec ? store : { ...store, withCodec: (given) => sqliteStore(shared, given) };
}

/** What the store's file is, in messages. */
const ROLE = 'SQLite store';

function openDatabase(options: SqliteStoreOptions): SqliteFile {
  const file = openSqliteFile({
    path: options.path,
    role: ROLE,
    synchronous: options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL',
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  try {
    file.run('open', () => prepareLayout(file.db, options.path));
    return file;
  } catch (error) {
    file.close();
    throw error;
  }
}
