/**
 * Applies events to the read-model tables: the projection, in SQL. Each call runs inside the
 * caller's transaction, and the checkpoint is the last `rm_items` row, written with the event, so
 * a crash never applies an event twice or skips one; events at or before the checkpoint are skipped (another process or an
 * earlier call applied them), and a gap is refused.
 */
import type Database from 'better-sqlite3';
import { MemoryError, assertNever, erasedForm, type Sequenced } from '../core/index.js';
import { encodeEvent } from '../store/codec.js';
import { multiRowInsert, RowBuffer } from '../db/multi-row-insert.js';
import type { SeqsOf } from './item-seqs.js';
import { KIND_CODES } from '../db/encodings.js';
import type { SearchReadModel } from './search.read-model.js';
import { readModelNames, type ReadModelNames } from './read-model.names.js';

interface Totals {
  messages: number;
  documents: number;
  deleted_messages: number;
  deleted_documents: number;
}

interface ItemRow {
  readonly kind: number;
  readonly deleted_seq: number | null;
}

/**
 * Writes events of one memory (`mem`) into the read models; returns those it applied. A gap
 * is refused (`LOG_INVARIANT_VIOLATED`), or with `gap: 'leave'`, when it comes before the first
 * event to apply, nothing is applied and none returned (the catch-up's to fill).
 */
export type ApplyEvents = (
  mem: number,
  events: readonly Sequenced[],
  options?: { readonly gap?: 'refuse' | 'leave' },
) => Sequenced[];

/**
 * Prepares the writer over `db`, on one layout's tables (`names`); `withPayloads` also stores
 * each event (no log in this file); `seqsOf` finds items by id.
 */
export function prepareWriter(
  db: Database.Database,
  search: SearchReadModel,
  withPayloads: boolean,
  seqsOf: SeqsOf,
  names: ReadModelNames = readModelNames(),
): ApplyEvents {
  const { rm_items: items, rm_recall_uses: uses, rm_payloads: payloads } = names;
  const sql = {
    // Each row carries the running totals right after its seq (read-model.schema.ts); rows go
    // many to a statement (src/db/multi-row-insert.ts).
    insertItems: multiRowInsert<number | string>(
      db,
      `INSERT INTO ${items} (mem, seq, kind, id, messages, documents, deleted_messages,
         deleted_documents) VALUES`,
      8,
    ),
    itemAt: db.prepare<[number, number], ItemRow>(
      `SELECT kind, deleted_seq FROM ${items} WHERE mem = ? AND seq = ?`,
    ),
    markDeleted: db.prepare<[number, number, number]>(
      `UPDATE ${items} SET deleted_seq = ? WHERE mem = ? AND seq = ? AND deleted_seq IS NULL`,
    ),
    markErased: db.prepare<[number, number, number]>(
      `UPDATE ${items} SET erased_seq = ? WHERE mem = ? AND seq = ? AND erased_seq IS NULL`,
    ),
    // The last row: the checkpoint (read-model.schema.ts) and the totals right after it.
    last: db.prepare<[number], Totals & { seq: number }>(
      `SELECT seq, messages, documents, deleted_messages, deleted_documents FROM ${items}
        WHERE mem = ? ORDER BY seq DESC LIMIT 1`,
    ),
    // One statement per Recall for all its items (seqs of a JSON array).
    insertRecallUses: db.prepare<[number, number, string, string]>(
      `INSERT OR IGNORE INTO ${uses} (mem, item_seq, recall_seq, recall_ts)
       SELECT ?, value, ?, ? FROM json_each(?)`,
    ),
  };
  const insertPayload = withPayloads
    ? db.prepare<[number, number, string, string]>(
        `INSERT INTO ${payloads} (mem, seq, type, payload) VALUES (?, ?, ?, ?)`,
      )
    : undefined;
  const payloadAt = withPayloads
    ? db
        .prepare<[number, number], string>(
          `SELECT payload FROM ${payloads} WHERE mem = ? AND seq = ?`,
        )
        .pluck()
    : undefined;
  const rewritePayload = withPayloads
    ? db.prepare<[string, number, number]>(
        `UPDATE ${payloads} SET payload = ? WHERE mem = ? AND seq = ?`,
      )
    : undefined;
  /** Drops an erased item's words from every copy this file holds: search rows and payload. */
  const forgetWords = (mem: number, seq: number) => {
    search.forget(mem, seq);
    const payload = payloadAt?.get(mem, seq);
    if (payload !== undefined) {
      rewritePayload!.run(JSON.stringify(erasedForm(JSON.parse(payload) as object)), mem, seq);
    }
  };

  return (mem, events, options) => {
    const last = sql.last.get(mem);
    let checkpoint = last?.seq ?? -1;
    const t: Totals = {
      messages: last?.messages ?? 0,
      documents: last?.documents ?? 0,
      deleted_messages: last?.deleted_messages ?? 0,
      deleted_documents: last?.deleted_documents ?? 0,
    };
    const applied: Sequenced[] = [];
    // Rows not yet written: written before anything reads or marks rm_items (a Deletion or
    // Erasure), and at the end.
    const rows = new RowBuffer(sql.insertItems);
    const targets = new TargetSeqs(seqsOf, mem, events);
    for (const event of events) {
      if (event.seq <= checkpoint) continue;
      if (event.seq !== checkpoint + 1) {
        if (options?.gap === 'leave' && applied.length === 0) return applied;
        throw new MemoryError(
          'LOG_INVARIANT_VIOLATED',
          `Read models expected seq ${checkpoint + 1} but were given seq ${event.seq}.`,
          { details: { expected: checkpoint + 1, actual: event.seq } },
        );
      }
      if (insertPayload) {
        const { type, data } = encodeEvent(event);
        insertPayload.run(mem, event.seq, type, JSON.stringify(data));
      }
      switch (event.kind) {
        case 'message':
        case 'document':
          if (event.kind === 'message') t.messages++;
          else t.documents++;
          // Search indexes it later, in a batch, before the next search (read-model-db.ts).
          break;
        case 'recall': {
          // Every recalled id is earlier in the log (the guard saw it), so already applied.
          const seqs = targets.of(event.recalled);
          if (seqs.length > 0)
            sql.insertRecallUses.run(mem, event.seq, event.timestamp, JSON.stringify(seqs));
          break;
        }
        case 'deletion':
          rows.flush();
          for (const seq of targets.of(event.targets)) {
            const item = sql.itemAt.get(mem, seq);
            if (!item || item.deleted_seq !== null) continue;
            sql.markDeleted.run(event.seq, mem, seq);
            if (item.kind === KIND_CODES.message) t.deleted_messages++;
            else t.deleted_documents++;
          }
          break;
        case 'erasure':
          rows.flush();
          for (const seq of targets.of(event.targets)) {
            if (!sql.itemAt.get(mem, seq)) continue;
            sql.markErased.run(event.seq, mem, seq);
            forgetWords(mem, seq);
          }
          break;
        default:
          assertNever(event, 'event kind');
      }
      // After the kind's work, so the row holds the totals right after this event.
      rows.add(
        mem,
        event.seq,
        KIND_CODES[event.kind],
        event.id,
        t.messages,
        t.documents,
        t.deleted_messages,
        t.deleted_documents,
      );
      targets.applied.set(event.id, event.seq);
      checkpoint = event.seq;
      applied.push(event);
    }
    rows.flush();
    return applied;
  };
}

/**
 * The seqs of the items one call recalls, deletes or erases (every one earlier in the log: the
 * guard saw it). Those the call applied are found without a read; those written before it, all
 * in one read at the first need (none for a call that applies no Recall, Deletion or Erasure);
 * an item of an event the call skipped as already applied, read when asked for.
 */
class TargetSeqs {
  /** Items this call applied: id -> seq. */
  readonly applied = new Map<string, number>();
  private earlier: ReadonlyMap<string, number> | undefined;

  constructor(
    private readonly seqsOf: SeqsOf,
    private readonly mem: number,
    private readonly events: readonly Sequenced[],
  ) {}

  /** The seqs of `ids`. A recall that lists an id twice gets it twice (INSERT OR IGNORE). */
  of(ids: readonly string[]): number[] {
    this.earlier ??= this.seqsOf(this.mem, targetsBefore(this.events));
    const seqs: number[] = [];
    let unknown: string[] | undefined;
    for (const id of ids) {
      const seq = this.applied.get(id) ?? this.earlier.get(id);
      if (seq !== undefined) seqs.push(seq);
      else (unknown ??= []).push(id);
    }
    if (unknown) for (const seq of this.seqsOf(this.mem, unknown).values()) seqs.push(seq);
    return seqs;
  }
}

/** The ids that `events` target or recall, less the ids of `events` themselves. */
function targetsBefore(events: readonly Sequenced[]): string[] {
  let ids: Set<string> | undefined;
  for (const event of events) {
    const referenced =
      event.kind === 'recall'
        ? event.recalled
        : event.kind === 'deletion' || event.kind === 'erasure'
          ? event.targets
          : undefined;
    if (referenced) for (const id of referenced) (ids ??= new Set()).add(id);
  }
  if (ids === undefined) return [];
  for (const event of events) ids.delete(event.id);
  return [...ids];
}
