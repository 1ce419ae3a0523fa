/**
 * How events become id index rows (id-index/id-index.rows.ts), on a real SQLite database:
 * rows and checkpoint move together, events the file already holds are skipped, a checkpoint that
 * went back is reported, a gap in the stream is refused with nothing written, and a deletion
 * marks its target once. Rows alone (what the index holds for its unwritten appends) write as the
 * events do.
 */
import type Database from 'better-sqlite3';
import { isMemoryError, type MemoryEvent, type Sequenced } from '../../../src/core/index.js';
import { openIdIndexFile } from '../../../src/store/eventstoredb/id-index/id-index.schema.js';
import { rowOf, writeEvents } from '../../../src/store/eventstoredb/id-index/id-index.rows.js';
import {
  prepare,
  type Statements,
} from '../../../src/store/eventstoredb/id-index/id-index.statements.js';
import { idOfKey } from '../../../src/db/encodings.js';
import { deletionOf, doc, message, recallOf } from '../../support/events.js';

let db: Database.Database;
let sql: Statements;
let mem: number;

beforeEach(() => {
  db = openIdIndexFile(':memory:').db;
  sql = prepare(db);
  sql.addMemory.run('memory-default');
  mem = sql.memKey.get('memory-default')!;
});
afterEach(() => db.close());

const at = <E extends MemoryEvent>(event: E, seq: number) => ({ ...event, seq }) as Sequenced;
/** `writeEvents` in one write transaction, as the index runs it. */
const write = (base: number | null, events: Parameters<typeof writeEvents>[2]) =>
  db.transaction(() => writeEvents({ sql, mem, memoryId: 'default' }, base, events)).immediate();
const rows = () =>
  db
    .prepare<[number], { id: Uint8Array | string; seq: number; deleted_seq: number | null }>(
      'SELECT id, seq, deleted_seq FROM esdb_index_ids WHERE mem = ? ORDER BY seq',
    )
    .all(mem)
    .map((row) => ({ id: idOfKey(row.id), seq: row.seq, deletedSeq: row.deleted_seq }));

describe('EventStoreDB id index rows', () => {
  it('writes each event’s row and moves the checkpoint with them, in one step for a burst', () => {
    const events = [at(message('a'), 0), at(doc('b'), 1), at(recallOf([]), 2)];

    expect(write(null, events)).toBe(2);
    expect(rows()).toEqual(events.map((e) => ({ id: e.id, seq: e.seq, deletedSeq: null })));
    expect(sql.checkpointSeq.get(mem)).toBe(2);
  });

  it('writes rows alone (an unwritten append’s) exactly as the events they come from', () => {
    const events = [at(message('a'), 0), at(doc('b'), 1)];

    expect(
      write(
        null,
        events.map((event) => rowOf(event)!),
      ),
    ).toBe(1);
    expect(rows()).toEqual(events.map((e) => ({ id: e.id, seq: e.seq, deletedSeq: null })));
    expect(rowOf(at(deletionOf([events[0]!.id]), 2))).toBeUndefined();
  });

  it('skips events the file already holds (another process applied them) and writes the rest', () => {
    const events = [at(message('a'), 0), at(message('b'), 1), at(message('c'), 2)];
    write(null, events.slice(0, 2));

    expect(write(null, events)).toBe(2);
    expect(rows().map((row) => row.seq)).toEqual([0, 1, 2]);
  });

  it('writes nothing and answers false when the checkpoint went back behind the caller’s base', () => {
    const events = [at(message('a'), 0), at(message('b'), 1)];

    expect(write(0, [events[1]!])).toBe(false);
    expect(rows()).toEqual([]);
  });

  it('refuses a gap in the stream with LOG_INVARIANT_VIOLATED and writes nothing', () => {
    const events = [at(message('a'), 0), at(message('c'), 2)];

    let thrown: unknown;
    try {
      write(null, events);
    } catch (error) {
      thrown = error;
    }
    expect(isMemoryError(thrown, 'LOG_INVARIANT_VIOLATED')).toBe(true);
    expect((thrown as Error).message).toContain('seq 2 where seq 1 was expected');
    expect(rows()).toEqual([]);
    expect(sql.checkpointSeq.get(mem) ?? null).toBeNull();
  });

  it('marks a deletion’s target with the first deletion only', () => {
    const item = at(message('a'), 0);
    const first = at(deletionOf([item.id]), 1);
    const again = at(deletionOf([item.id]), 2);

    expect(write(null, [item, first, again])).toBe(2);
    expect(rows()[0]).toEqual({ id: item.id, seq: 0, deletedSeq: 1 });
  });
});
