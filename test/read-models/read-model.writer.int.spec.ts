/**
 * The read models' writer finds the items an append recalls, deletes or erases: those the same
 * call applied without a read, those written before it together in one lookup, and an item the
 * call skipped as already applied as well.
 */
import Database from 'better-sqlite3';
import {
  createDeletion,
  createMessage,
  createRecall,
  type MemoryEvent,
  type Sequenced,
} from '../../src/core/index.js';
import { ensureReadModelSchema } from '../../src/read-models/read-model.schema.js';
import { prepareWriter, type ApplyEvents } from '../../src/read-models/read-model.writer.js';
import { seqsOnReadModels } from '../../src/read-models/item-seqs.js';
import { prepareSearchReadModel } from '../../src/read-models/search.read-model.js';

const MEM = 1;
let db: Database.Database;
let write: ApplyEvents;
let lookups: string[][];

beforeEach(() => {
  db = new Database(':memory:');
  ensureReadModelSchema(db, false);
  db.prepare("INSERT INTO rm_memories (mem, memory_id) VALUES (1, 'default')").run();
  const seqsOf = seqsOnReadModels(db);
  lookups = [];
  write = prepareWriter(db, prepareSearchReadModel(db), false, (mem, ids) => {
    lookups.push([...ids]);
    return seqsOf(mem, ids);
  });
});
afterEach(() => db.close());

/** `events` numbered from `from`, as the log numbers them. */
const at = (from: number, events: readonly MemoryEvent[]): Sequenced[] =>
  events.map((event, i) => Object.freeze({ ...event, seq: from + i }) as Sequenced);

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => createMessage({ speaker: 'user', content: `m${i}` }));

const usesOf = (recallSeq: number) =>
  db
    .prepare('SELECT item_seq FROM rm_recall_uses WHERE mem = ? AND recall_seq = ? ORDER BY 1')
    .pluck()
    .all(MEM, recallSeq);

const totals = () =>
  db
    .prepare('SELECT messages, deleted_messages FROM rm_items WHERE mem = ? ORDER BY seq DESC')
    .get(MEM);

describe('the read models writer finding the items an append targets', () => {
  it('finds the targets of every event written before the append in one lookup', () => {
    const earlier = messages(6);
    write(MEM, at(0, earlier));
    const appended = at(6, [
      createRecall({ query: 'q', recalled: [earlier[0]!.id, earlier[1]!.id] }),
      createRecall({ query: 'q', recalled: [earlier[2]!.id] }),
      createDeletion({ targets: [earlier[3]!.id, earlier[4]!.id], reason: 'r' }),
    ]);
    lookups = [];

    expect(write(MEM, appended)).toHaveLength(3);

    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.sort()).toEqual([0, 1, 2, 3, 4].map((i) => earlier[i]!.id).sort());
    expect(usesOf(6)).toEqual([0, 1]);
    expect(usesOf(7)).toEqual([2]);
    expect(totals()).toEqual({ messages: 6, deleted_messages: 2 });
  });

  it('finds what the same append wrote without a lookup', () => {
    const [first, second] = messages(2);
    const appended = at(0, [
      first!,
      second!,
      createRecall({ query: 'q', recalled: [first!.id, second!.id] }),
      createDeletion({ targets: [first!.id], reason: 'r' }),
    ]);

    write(MEM, appended);

    expect(lookups.flat()).toEqual([]);
    expect(usesOf(2)).toEqual([0, 1]);
    expect(totals()).toEqual({ messages: 2, deleted_messages: 1 });
  });

  it('records an item a recall lists twice as one use', () => {
    const [item] = messages(1);
    write(MEM, at(0, [item!]));

    write(MEM, at(1, [createRecall({ query: 'q', recalled: [item!.id, item!.id] })]));

    expect(usesOf(1)).toEqual([0]);
  });

  it('finds an item of the call that was already applied (and so skipped) by reading it', () => {
    const written = messages(4);
    write(MEM, at(0, written));
    const recall = createRecall({ query: 'q', recalled: [written[2]!.id, written[3]!.id] });
    lookups = [];

    // A catch-up handed events it partly holds: seqs 2 and 3 are skipped, the recall applied.
    expect(write(MEM, at(2, [written[2]!, written[3]!, recall])).map((e) => e.seq)).toEqual([4]);

    expect(usesOf(4)).toEqual([2, 3]);
    expect(lookups.at(-1)!.sort()).toEqual([written[2]!.id, written[3]!.id].sort());
  });
});
