/**
 * Applies events to the read-model tables: the projection, in SQL. Each call runs inside the
 * caller's transaction together with the checkpoint update, so a crash never applies an event
 * twice or skips one; events at or before the checkpoint are skipped (another process or an
 * earlier call applied them), and a gap is refused.
 */
import type Database from 'better-sqlite3';
import { MemoryError, assertNever, erasedForm, type Sequenced } from '../core/index.js';
import { encodeEvent } from '../store/codec.js';
import { KIND_CODE } from './read-model.schema.js';
import type { SearchReadModel } from './search.read-model.js';

interface Totals {
  messages: number;
  documents: number;
  deleted_messages: number;
  deleted_documents: number;
}

interface ItemRow {
  readonly seq: number;
  readonly kind: number;
  readonly deleted_seq: number | null;
}

/** Writes events of one memory (`mem`) into the read models; returns those it applied. */
export type ApplyEvents = (mem: number, events: readonly Sequenced[]) => Sequenced[];

/** Prepares the writer over `db`; `withPayloads` also stores each event (no log in this file). */
export function prepareWriter(
  db: Database.Database,
  search: SearchReadModel,
  withPayloads: boolean,
): ApplyEvents {
  const sql = {
    checkpoint: db
      .prepare<[number], number>('SELECT checkpoint FROM rm_memories WHERE mem = ?')
      .pluck(),
    setCheckpoint: db.prepare<[number, string, number]>(
      'UPDATE rm_memories SET checkpoint = ?, checkpoint_id = ? WHERE mem = ?',
    ),
    insertItem: db.prepare<[number, number, number, string]>(
      'INSERT INTO rm_items (mem, seq, kind, id) VALUES (?, ?, ?, ?)',
    ),
    itemById: db.prepare<[number, string], ItemRow>(
      'SELECT seq, kind, deleted_seq FROM rm_items WHERE mem = ? AND id = ?',
    ),
    markDeleted: db.prepare<[number, number, number]>(
      'UPDATE rm_items SET deleted_seq = ? WHERE mem = ? AND seq = ? AND deleted_seq IS NULL',
    ),
    markErased: db.prepare<[number, number, number]>(
      'UPDATE rm_items SET erased_seq = ? WHERE mem = ? AND seq = ? AND erased_seq IS NULL',
    ),
    lastTotals: db.prepare<[number], Totals>(
      `SELECT messages, documents, deleted_messages, deleted_documents FROM rm_totals
        WHERE mem = ? ORDER BY seq DESC LIMIT 1`,
    ),
    insertTotals: db.prepare<[number, number, number, number, number, number]>(
      `INSERT INTO rm_totals (mem, seq, messages, documents, deleted_messages, deleted_documents)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    insertRecallUse: db.prepare<[number, number, number, string]>(
      `INSERT OR IGNORE INTO rm_recall_uses (mem, item_seq, recall_seq, recall_ts)
       VALUES (?, ?, ?, ?)`,
    ),
  };
  const insertPayload = withPayloads
    ? db.prepare<[number, number, string, string]>(
        'INSERT INTO rm_payloads (mem, seq, type, payload) VALUES (?, ?, ?, ?)',
      )
    : undefined;
  const payloadAt = withPayloads
    ? db
        .prepare<[number, number], string>(
          'SELECT payload FROM rm_payloads WHERE mem = ? AND seq = ?',
        )
        .pluck()
    : undefined;
  const rewritePayload = withPayloads
    ? db.prepare<[string, number, number]>(
        'UPDATE rm_payloads SET payload = ? WHERE mem = ? AND seq = ?',
      )
    : undefined;
  /** Drops an erased item's words from every copy this file holds: search rows and payload. */
  const forgetWords = (mem: number, id: string, seq: number) => {
    search.forget(mem, id);
    const payload = payloadAt?.get(mem, seq);
    if (payload !== undefined) {
      rewritePayload!.run(JSON.stringify(erasedForm(JSON.parse(payload) as object)), mem, seq);
    }
  };

  return (mem, events) => {
    let checkpoint = sql.checkpoint.get(mem) ?? -1;
    let totals: Totals | undefined;
    const currentTotals = () =>
      (totals ??= {
        ...(sql.lastTotals.get(mem) ?? {
          messages: 0,
          documents: 0,
          deleted_messages: 0,
          deleted_documents: 0,
        }),
      });
    const writeTotals = (seq: number, t: Totals) =>
      sql.insertTotals.run(
        mem,
        seq,
        t.messages,
        t.documents,
        t.deleted_messages,
        t.deleted_documents,
      );
    const applied: Sequenced[] = [];
    for (const event of events) {
      if (event.seq <= checkpoint) continue;
      if (event.seq !== checkpoint + 1) {
        throw new MemoryError(
          'LOG_INVARIANT_VIOLATED',
          `Read models expected seq ${checkpoint + 1} but were given seq ${event.seq}.`,
          { details: { expected: checkpoint + 1, actual: event.seq } },
        );
      }
      sql.insertItem.run(mem, event.seq, KIND_CODE[event.kind], event.id);
      if (insertPayload) {
        const { type, data } = encodeEvent(event);
        insertPayload.run(mem, event.seq, type, JSON.stringify(data));
      }
      switch (event.kind) {
        case 'message':
        case 'document': {
          const t = currentTotals();
          if (event.kind === 'message') t.messages++;
          else t.documents++;
          writeTotals(event.seq, t);
          // Search indexes it later, in a batch, before the next search (read-model-db.ts).
          break;
        }
        case 'recall':
          for (const id of new Set(event.recalled)) {
            const item = sql.itemById.get(mem, id);
            if (item) sql.insertRecallUse.run(mem, item.seq, event.seq, event.timestamp);
          }
          break;
        case 'deletion': {
          const t = currentTotals();
          for (const id of event.targets) {
            const item = sql.itemById.get(mem, id);
            if (!item || item.deleted_seq !== null) continue;
            sql.markDeleted.run(event.seq, mem, item.seq);
            if (item.kind === KIND_CODE.message) t.deleted_messages++;
            else t.deleted_documents++;
          }
          writeTotals(event.seq, t);
          break;
        }
        case 'erasure':
          for (const id of event.targets) {
            const item = sql.itemById.get(mem, id);
            if (!item) continue;
            sql.markErased.run(event.seq, mem, item.seq);
            forgetWords(mem, id, item.seq);
          }
          break;
        default:
          assertNever(event, 'event kind');
      }
      checkpoint = event.seq;
      applied.push(event);
    }
    const last = applied.at(-1);
    if (last) sql.setCheckpoint.run(last.seq, last.id, mem);
    return applied;
  };
}
