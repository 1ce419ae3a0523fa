/**
 * One memory's log in the SQLite store: the append (guard and insert in one transaction, the
 * inline projections in it), reads, get and subscriptions, with the store's content codec
 * applied where events are encoded and decoded.
 */
import {
  decideAppend,
  idsNamedBy,
  idsReferencedBy,
  LIMITS,
  type MemoryEvent,
  type Sequenced,
  type StoredFields,
} from '../../core/index.js';
import { validateAppendInput, type AppendLimits, type SizedEventLog } from '../append-input.js';
import { catchUpThenLive } from '../catch-up-subscription.js';
import type { ChangeFeed } from '../change-notifier.js';
import { LazyProjected } from '../codec.js';
import { appendThrough, storedAsIs, type CodecHost, type ContentCodec } from '../content-codec.js';
import type {
  AppendHook,
  AppendOptions,
  ReadOptions,
  SubscribeOptions,
} from '../event-log.port.js';
import type { ProjectedEvent } from '../projection.port.js';
import { resolveReadRange } from '../read-range.js';
import { transactionAtFirstCall, type AssignedKeys } from '../../db/transactions.js';
import { decodeTrustedStoredRow } from './sqlite.codec.js';
import { storedEntries } from './sqlite.entries.js';
import { insertLogRows, type PlainOf } from './sqlite.log-rows.js';
import type { EventRow, Statements } from './sqlite.statements.js';

/** What every log of one store shares. */
export interface SqliteContext {
  readonly statements: Statements;
  /** The memories' keys in the log, remembered (a rollback makes them read again). */
  readonly memoryKeys: AssignedKeys<string, number>;
  /** The wire type of a stored type code. */
  readonly typeOf: (code: number) => string;
  readonly decode: (row: EventRow, where: string) => Sequenced;
  readonly hooks: readonly AppendHook[];
  /** Runs one hook in a savepoint of its own, so one that throws rolls back alone. */
  readonly runHook: (
    hook: AppendHook,
    memoryId: string,
    written: readonly ProjectedEvent[],
  ) => void;
  readonly run: <T>(what: string, work: () => T) => T;
  /** Runs a transaction function in the next group commit (src/db/group-commit.ts). */
  readonly commitInGroup: <T>(what: string, work: () => T) => Promise<T>;
  readonly changes: ChangeFeed;
  readonly path: string;
  /** The content codec, when the store has one (sealing). */
  readonly codec: ContentCodec | undefined;
  /** Resolves when the codec has started; every operation waits for it. */
  readonly ready: Promise<unknown> | undefined;
  readonly host: CodecHost;
  isClosed(): boolean;
}

/** The log of `memoryId`. */
export function sqliteLog(memoryId: string, ctx: SqliteContext): SizedEventLog {
  const { statements: sql, run, codec, ready } = ctx;
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
  const plain = <E extends Sequenced>(events: E[]): E[] =>
    codec ? codec.decode(memoryId, events) : events;
  // Trusted reads feed catch-ups, which take whole ranges: larger pages, fewer statements.
  const pageSize = (options: ReadOptions) => (options.trusted ? 4096 : 512);
  /** The memory's key, or undefined before its first append. */
  const keyOf = (): number | undefined =>
    ctx.memoryKeys.of(memoryId, () => sql.memoryKey.get(memoryId));
  const lastSeq = (): number | null => {
    const key = keyOf();
    return key === undefined ? null : (sql.lastSeq.get(key) ?? null);
  };
  const entriesOf = storedEntries(sql, memoryId, where, ctx.typeOf, decode);

  /**
   * One attempt at an append, in its own savepoint. With `ownIds` false, the ids the append
   * itself brings are not looked up, only the ids it names (targets, recalled ids): the log's
   * unique index on (memory, id) then refuses any of them the log already holds, which
   * {@link guardedAppend} answers by trying again with every id looked up.
   */
  const appendTx = (
    events: readonly MemoryEvent[],
    expectedLastSeq: number | null | undefined,
    ownIds: boolean,
    plainOf: PlainOf,
  ) => {
    const own = new Set(events.map((e) => e.id));
    const entries = entriesOf(ownIds ? idsNamedBy(events) : idsReferencedBy(events), own);
    const head = lastSeq();
    // Idempotency compares the stored forms: sealing is deterministic for one item and one
    // content (src/keys/content-seal.ts), so the same words seal to the same bytes.
    const decision = decideAppend({ memoryId, lastSeq: head, entries }, events, expectedLastSeq);
    // The memory's key is recorded only by an append that writes, so every memory listed holds
    // events; one that holds events has its key already (keys are never deleted).
    let projected: readonly ProjectedEvent[] = [];
    if (decision.toWrite.length > 0) {
      if (head === null) sql.insertMemory.run(memoryId);
      projected = insertLogRows(sql, keyOf()!, decision.toWrite, { where, plainOf });
    }
    if (projected.length > 0 && ctx.hooks.length > 0) {
      for (const hook of ctx.hooks) {
        try {
          ctx.runHook(hook, memoryId, projected);
        } catch {
          // Its savepoint is rolled back: that projection stays at its checkpoint and the next
          // query's catch-up applies these events again (and reports the error if it persists).
        }
      }
    }
    return decision;
  };
  // Made at the handle's first write: catch-ups and reads open a handle each time and never
  // write through it, and each transaction wrapper costs microseconds to make.
  const attempt = transactionAtFirstCall(sql.db, appendTx);
  /**
   * The append, decided first without looking up its own ids (the usual case: they are new).
   * That attempt is kept only when it wrote them all, which proves the log held none of them, so
   * its decision is the one a full lookup gives. Any error (an id already stored, or a guard
   * error that a full lookup might order differently) rolls it back, and the append is decided
   * again with every id looked up: that second decision is the one returned or thrown.
   */
  const guardedAppend = (
    events: readonly MemoryEvent[],
    expectedLastSeq: number | null | undefined,
    plainOf: PlainOf,
  ) => {
    try {
      return attempt(events, expectedLastSeq, false, plainOf);
    } catch (error) {
      // An error SQLite answered by ending the transaction (I/O, disk full) is the group's.
      if (!sql.db.inTransaction) throw error;
      return attempt(events, expectedLastSeq, true, plainOf);
    }
  };
  // Computed appends (recall) write no content: nothing to encode, only what comes back.
  const computedAppend = transactionAtFirstCall(
    sql.db,
    (compute: (lastSeq: number | null) => readonly MemoryEvent[] | undefined) => {
      const head = lastSeq();
      const computed = compute(head);
      if (computed === undefined) return undefined;
      return guardedAppend(validateAppendInput(computed, limits), head, storedAsIs);
    },
  );

  return {
    memoryId,
    limits: codec ? codec.limits(limits) : limits,
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const { decision, events } = await appendThrough(
        codec,
        memoryId,
        input,
        { limits, host: ctx.host, ready },
        (encoded) =>
          ctx.commitInGroup('append', () =>
            guardedAppend(encoded.stored, options.expectedLastSeq, encoded.plainOf),
          ),
      );
      if (decision.toWrite.length > 0) ctx.changes.of(memoryId).notify();
      return events;
    },
    async appendComputed(compute) {
      if (ready) await ready;
      const decision = await ctx.commitInGroup('append', () => computedAppend(compute));
      if (decision && decision.toWrite.length > 0) ctx.changes.of(memoryId).notify();
      return decision && plain([...decision.stored]);
    },
    async *read(options: ReadOptions = {}) {
      if (ready) await ready;
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
        if (codec)
          yield* codec.decode(
            memoryId,
            rows.map((row) => decodeRead(row)),
          );
        else for (const row of rows) yield decodeRead(row);
        remaining -= rows.length;
        cursor = forwards ? rows.at(-1)!.seq + 1 : rows.at(-1)!.seq - 1;
      }
    },
    async *readProjected(options = {}) {
      if (ready) await ready;
      const range = resolveReadRange({ ...options, direction: 'forwards' }, run('read', lastSeq));
      let remaining = range.limit;
      for (let cursor = range.lo; remaining > 0 && cursor <= range.hi;) {
        const rows = run('read', () =>
          sql.readForwards.all(memoryId, cursor, range.hi, Math.min(remaining, pageSize(options))),
        );
        if (rows.length === 0) return;
        const fields: StoredFields[] = [];
        const stored: Sequenced[] = [];
        for (const row of rows) {
          // Validated: decoded first, so a payload that is not an event is EVENT_DECODE_FAILED,
          // named as such. Trusted: the payload is parsed once for the event and its stored form.
          const validated = options.trusted ? undefined : decode(row);
          const parsed = JSON.parse(row.payload) as StoredFields;
          fields.push(parsed);
          stored.push(validated ?? trusted(row, parsed));
        }
        const events = plain(stored);
        for (const [i, row] of rows.entries())
          yield new LazyProjected(events[i]!, ctx.typeOf(row.type), row.version, fields[i]);
        remaining -= rows.length;
        cursor = rows.at(-1)!.seq + 1;
      }
    },
    async get(id) {
      if (ready) await ready;
      const key = id.toLowerCase();
      const event = run('get', () => entriesOf([key], new Set([key])).get(key)?.event);
      return event && plain([event])[0];
    },
    async lastSeq() {
      if (ready) await ready;
      return run('read', lastSeq);
    },
    subscribe(options: SubscribeOptions = {}) {
      return catchUpThenLive(
        {
          page: async (fromSeq, max) => {
            if (ready) await ready;
            const rows = run('subscribe', () =>
              sql.readForwards.all(memoryId, fromSeq, Number.MAX_SAFE_INTEGER, max),
            );
            return plain(rows.map(decode));
          },
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
