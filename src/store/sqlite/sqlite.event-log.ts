/**
 * The SQLite store (better-sqlite3, WAL): the embedded default. Guard and insert run inside
 * `BEGIN IMMEDIATE`, which takes the file's write lock first, so several processes can append
 * to one file and each sees the others' events before deciding.
 */
import {
  decideAppend,
  idsNamedBy,
  idsReferencedBy,
  LIMITS,
  MemoryError,
  type MemoryEvent,
  type Sequenced,
  type StoredFields,
} from '../../core/index.js';
import { validateAppendInput, type AppendLimits, type SizedEventLog } from '../append-input.js';
import { catchUpThenLive } from '../catch-up-subscription.js';
import { ChangeFeed } from '../change-notifier.js';
import type {
  AppendHook,
  AppendOptions,
  MemoryStore,
  ReadOptions,
  SubscribeOptions,
} from '../event-log.port.js';
import { LazyProjected } from '../codec.js';
import type { ProjectedEvent } from '../projection.port.js';
import { checkMemoryId } from '../memory-id.js';
import { resolveReadRange } from '../read-range.js';
import { decodeRow, decodeTrustedStoredRow, typeOfCode } from './sqlite.codec.js';
import { storedEntries } from './sqlite.entries.js';
import { CommitGroups } from '../../db/group-commit.js';
import { openSqliteFile, translateSqliteError, type SqliteFile } from '../../db/sqlite-file.js';
import { prepareLayout } from './sqlite.migrate.js';
import { embeddedDatabase } from './sqlite.embedded.js';
import { insertLogRows } from './sqlite.log-rows.js';
import { prepareStatements, type EventRow, type Statements } from './sqlite.statements.js';

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

/** Opens (creating when needed) a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): MemoryStore {
  const file = openDatabase(options);
  const { db, wal } = file;
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
  // `run` for a write: the closed check now, the transaction with the next group commit.
  const commitInGroup = async <T>(what: string, work: () => T): Promise<T> => {
    const submitted = run(what, () => groups.submit(work));
    return submitted.catch((error: unknown) => {
      throw translateSqliteError(error, site(what));
    });
  };
  const hooks: AppendHook[] = [];
  const context: SqliteContext = {
    statements,
    typeOf,
    decode,
    hooks,
    run,
    commitInGroup,
    changes,
    isClosed: () => closed,
    path: options.path,
  };

  return {
    description: `SQLite ${options.path}`,
    embedded: embeddedDatabase(db, statements, hooks, typeOf, options.path, wal),
    log(memoryId) {
      const id = checkMemoryId(memoryId);
      return run('open memory', () => sqliteLog(id, context));
    },
    memoryIds() {
      return Promise.resolve(run('list memories', () => statements.memoryIds.all()));
    },
    holdsSealedContent() {
      return Promise.resolve(run('look for sealed content', () => !!statements.anySealed.get()));
    },
    close() {
      if (!closed) {
        // Appends already asked for are committed (and acknowledged) before the connection goes.
        try {
          groups.flush();
        } finally {
          closed = true;
          changes.close();
          file.close();
        }
      }
      return Promise.resolve();
    },
  };
}

interface SqliteContext {
  readonly statements: Statements;
  /** The wire type of a stored type code. */
  readonly typeOf: (code: number) => string;
  readonly decode: (row: EventRow, where: string) => Sequenced;
  readonly hooks: readonly AppendHook[];
  readonly run: <T>(what: string, work: () => T) => T;
  /** Runs a transaction function in the next group commit (src/db/group-commit.ts). */
  readonly commitInGroup: <T>(what: string, work: () => T) => Promise<T>;
  readonly changes: ChangeFeed;
  readonly path: string;
  isClosed(): boolean;
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

function sqliteLog(memoryId: string, ctx: SqliteContext): SizedEventLog {
  const { statements: sql, run } = ctx;
  const limits: AppendLimits = {
    store: `SQLite ${ctx.path}`,
    eventBytes: LIMITS.eventBytes.sqlite,
    appendBytes: LIMITS.appendBytes.sqlite,
  };
  const where = `SQLite ${ctx.path} memory ${memoryId}`;
  const decode = (row: EventRow) => ctx.decode(row, where);
  // A row this store appended was validated then: catch-ups take it as stored (upcast only).
  const trusted = (row: EventRow, fields?: StoredFields) =>
    decodeTrustedStoredRow(row, ctx.typeOf(row.type), where, fields);
  // Trusted reads feed catch-ups, which take whole ranges: larger pages, fewer statements.
  const pageSize = (options: ReadOptions) => (options.trusted ? 4096 : 512);
  const lastSeq = (): number | null => sql.lastSeq.get(memoryId) ?? null;
  const entriesOf = storedEntries(sql, memoryId, where, ctx.typeOf, decode);

  /**
   * One attempt at an append, in its own savepoint. With `ownIds` false, the ids the append
   * itself brings are not looked up, only the ids it names (targets, recalled ids): the log's
   * unique index on (memory, id) then refuses any of them the log already holds, which
   * {@link guardedAppend} answers by trying again with every id looked up. In batches of 100
   * of bench/sqlite-append's mix, the lookups cost 1.2 µs an event instead of 1.9.
   */
  const appendTx = (
    events: readonly MemoryEvent[],
    expectedLastSeq: number | null | undefined,
    ownIds: boolean,
  ) => {
    const own = new Set(events.map((e) => e.id));
    const entries = entriesOf(ownIds ? idsNamedBy(events) : idsReferencedBy(events), own);
    const head = lastSeq();
    const decision = decideAppend({ memoryId, lastSeq: head, entries }, events, expectedLastSeq);
    // The memory's key is recorded only by an append that writes, so every memory listed holds
    // events; one that holds events has its key already (keys are never deleted).
    let projected: readonly ProjectedEvent[] = [];
    if (decision.toWrite.length > 0) {
      if (head === null) sql.insertMemory.run(memoryId);
      projected = insertLogRows(sql, sql.memoryKey.get(memoryId)!, decision.toWrite, where);
    }
    if (projected.length > 0 && ctx.hooks.length > 0) {
      for (const hook of ctx.hooks) {
        try {
          runHook(hook, memoryId, projected);
        } catch {
          // Its savepoint is rolled back: that projection stays at its checkpoint and the next
          // query's catch-up applies these events again (and reports the error if it persists).
        }
      }
    }
    return decision;
  };
  const attempt = sql.db.transaction(appendTx);
  /**
   * The append, decided first without looking up its own ids (the usual case: they are new).
   * That attempt is kept only when it wrote them all, which proves the log held none of them, so
   * its decision is the one a full lookup gives. Any error (an id already stored, or a guard
   * error that a full lookup might order differently) rolls it back, and the append is decided
   * again with every id looked up: that second decision is the one returned or thrown.
   */
  const guardedAppend = (events: readonly MemoryEvent[], expectedLastSeq?: number | null) => {
    try {
      return attempt(events, expectedLastSeq, false);
    } catch (error) {
      // An error SQLite answered by ending the transaction (I/O, disk full) is the group's.
      if (!sql.db.inTransaction) throw error;
      return attempt(events, expectedLastSeq, true);
    }
  };
  const computedAppend = sql.db.transaction(
    (compute: (lastSeq: number | null) => readonly MemoryEvent[] | undefined) => {
      const head = lastSeq();
      const computed = compute(head);
      if (computed === undefined) return undefined;
      return guardedAppend(validateAppendInput(computed, limits), head);
    },
  );
  const runHook = sql.db.transaction(
    (hook: AppendHook, id: string, written: readonly ProjectedEvent[]) => hook(id, written),
  );

  return {
    memoryId,
    limits,
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const events = validateAppendInput(input, limits);
      const decision = await ctx.commitInGroup('append', () =>
        guardedAppend(events, options.expectedLastSeq),
      );
      if (decision.toWrite.length > 0) ctx.changes.of(memoryId).notify();
      return decision.stored;
    },
    async appendComputed(compute) {
      const decision = await ctx.commitInGroup('append', () => computedAppend(compute));
      if (decision && decision.toWrite.length > 0) ctx.changes.of(memoryId).notify();
      return decision?.stored;
    },
    async *read(options: ReadOptions = {}) {
      const range = resolveReadRange(options, run('read', lastSeq));
      const forwards = range.direction === 'forwards';
      let remaining = range.limit;
      let cursor = forwards ? range.lo : range.hi;
      const decodeRead = options.trusted ? trusted : decode;
      // Page through the range: an open better-sqlite3 iterator would block the connection across awaits.
      while (remaining > 0 && cursor >= range.lo && cursor <= range.hi) {
        const max = Math.min(remaining, pageSize(options));
        const rows = run('read', () =>
          forwards
            ? sql.readForwards.all(memoryId, cursor, range.hi, max)
            : sql.readBackwards.all(memoryId, cursor, range.lo, max),
        );
        if (rows.length === 0) return;
        for (const row of rows) yield decodeRead(row);
        remaining -= rows.length;
        cursor = forwards ? rows.at(-1)!.seq + 1 : rows.at(-1)!.seq - 1;
      }
    },
    async *readProjected(options = {}) {
      const range = resolveReadRange({ ...options, direction: 'forwards' }, run('read', lastSeq));
      let remaining = range.limit;
      for (let cursor = range.lo; remaining > 0 && cursor <= range.hi;) {
        const rows = run('read', () =>
          sql.readForwards.all(memoryId, cursor, range.hi, Math.min(remaining, pageSize(options))),
        );
        if (rows.length === 0) return;
        for (const row of rows) {
          // Validated: decoded first, so a payload that is not an event is EVENT_DECODE_FAILED,
          // named as such. Trusted: the payload is parsed once for the event and its stored form.
          const validated = options.trusted ? undefined : decode(row);
          const fields = JSON.parse(row.payload) as StoredFields;
          const event = validated ?? trusted(row, fields);
          yield new LazyProjected(event, ctx.typeOf(row.type), row.version, fields);
        }
        remaining -= rows.length;
        cursor = rows.at(-1)!.seq + 1;
      }
    },
    async get(id) {
      const key = id.toLowerCase();
      return run('get', () => entriesOf([key], new Set([key])).get(key)?.event);
    },
    async lastSeq() {
      return run('read', lastSeq);
    },
    subscribe(options: SubscribeOptions = {}) {
      return catchUpThenLive(
        {
          page: (fromSeq, max) =>
            Promise.resolve(
              run('subscribe', () =>
                sql.readForwards.all(memoryId, fromSeq, Number.MAX_SAFE_INTEGER, max).map(decode),
              ),
            ),
          changes: ctx.changes,
          memoryId,
          isClosed: () => ctx.isClosed(),
        },
        options.fromSeq ?? 0,
        options.signal,
      );
    },
  };
}
