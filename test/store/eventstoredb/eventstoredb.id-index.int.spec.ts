/**
 * The EventStoreDB id index in a file: it survives a reopen (the reopened store reads only what
 * follows its checkpoints), a file whose checkpoint the stream does not hold or of another layout
 * version is rebuilt from the stream, never trusted, and instances sharing one file stay exact.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import type { MemoryEvent } from '../../../src/core/index.js';
import { encodeEvent } from '../../../src/store/codec.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { raceDeletionsAgainstRecalls } from './racing-instances.js';
import { readAll, rejectionOf } from '../../support/collect.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';
import { deletionOf, doc, message, recallOf } from '../../support/events.js';

const servers: EsdbTestServer[] = [];
const stores: MemoryStore[] = [];
const clients: EventStoreDBClient[] = [];
let server: EsdbTestServer;
let dir: string;
let file: string;

beforeEach(async () => {
  server = await startEsdbTestServer();
  servers.push(server);
  dir = mkdtempSync(join(tmpdir(), 'memledger-esdb-id-index-'));
  file = join(dir, 'data', 'eventstoredb-index.db');
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const open = (idIndex = file, on = server) => {
  const store = openEventStoreDbStore({ connectionString: on.connectionString }, { idIndex });
  stores.push(store);
  return store;
};
const rawClient = (on = server) => {
  const client = EventStoreDBClient.connectionString(on.connectionString);
  clients.push(client);
  return client;
};
/**
 * A store on a client that records where each read of `memory-default` over more than one
 * revision starts (catch-ups; `get` reads its one revision, a head read starts at `END`).
 */
const openCounting = (idIndex = file, idIndexCommitDelayMs?: number) => {
  const starts: bigint[] = [];
  const client = rawClient();
  const counting = new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property !== 'readStream') return method.bind(target);
      return (stream: string, options?: { fromRevision?: unknown; maxCount?: unknown }) => {
        const from = options?.fromRevision;
        const many = Number(options?.maxCount ?? Infinity) > 1;
        if (stream === 'memory-default' && many && typeof from === 'bigint') starts.push(from);
        return method.call(target, stream, options);
      };
    },
  });
  const store = openEventStoreDbStore(
    { client: counting },
    idIndexCommitDelayMs === undefined ? { idIndex } : { idIndex, idIndexCommitDelayMs },
  );
  stores.push(store);
  return { store, starts };
};
/** Waits (at most 5 s) until `db` sees the default memory's checkpoint at `seq`. */
async function untilCommitted(db: Database.Database, seq: number): Promise<void> {
  const checkpoint = db
    .prepare<[], number | null>(
      "SELECT last_seq FROM esdb_index_streams WHERE stream = 'memory-default'",
    )
    .pluck();
  const deadline = Date.now() + 5_000;
  while (checkpoint.get() !== seq && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
const writeRaw = (client: EventStoreDBClient, events: readonly MemoryEvent[]) =>
  client.appendToStream(
    'memory-default',
    events.map((event) => {
      const { id, type, data } = encodeEvent(event);
      return jsonEvent({ id, type, data: data as never });
    }),
  );

describe('EventStoreDB id index file', () => {
  it('survives a reopen: the reopened store reads only from its checkpoint, never the whole stream', async () => {
    const first = open();
    const items = Array.from({ length: 120 }, (_, i) => (i % 4 ? message(`m${i}`) : doc(`d${i}`)));
    for (let i = 0; i < items.length; i += 10) await first.log().append(items.slice(i, i + 10));
    await first.log().append([deletionOf([items[5]!.id])]);
    await first.close();

    const { store, starts } = openCounting();
    const log = store.log();
    const got = await log.get(items[7]!.id);
    const again = await rejectionOf(log.append([deletionOf([items[5]!.id])]));
    const [next] = await log.append([recallOf([items[9]!.id])]);
    // Control: a store whose index is in process memory must read the stream from seq 0.
    const cold = openCounting(':memory:');
    await cold.store.log().get(items[7]!.id);

    expect(got).toEqual({ ...items[7], seq: 7 });
    expect(again.code).toBe('ALREADY_DELETED');
    expect(next!.seq).toBe(121);
    expect(starts.length).toBeGreaterThan(0);
    expect(new Set(starts)).toEqual(new Set([120n]));
    expect(cold.starts).toEqual([0n]);
  });

  it.each([
    ['as long as the checkpoint says', 3],
    ['shorter than the checkpoint', 1],
  ])(
    'rebuilds a memory whose checkpoint event is not in the stream (an index file from another server; its stream is %s)',
    async (_shape, length) => {
      const old = [message('old 0'), message('old 1'), message('old 2')];
      const before = open();
      await before.log().append(old);
      await before.close();
      const elsewhere = await startEsdbTestServer();
      servers.push(elsewhere);
      const now = Array.from({ length }, (_, i) => message(`now ${i}`));
      await writeRaw(rawClient(elsewhere), now);

      const log = open(file, elsewhere).log();
      // First thing after opening: a guard trusting the file would accept this deletion.
      const stale = await rejectionOf(log.append([deletionOf([old[0]!.id])]));
      const [deleted] = await log.append([deletionOf([now[0]!.id])]);

      expect(stale.code).toBe('DELETION_TARGET_UNKNOWN');
      expect(deleted!.seq).toBe(length);
      expect(await log.get(old[1]!.id)).toBeUndefined();
      expect(await log.get(now[0]!.id)).toEqual({ ...now[0], seq: 0 });
      expect((await readAll(log)).map((e) => e.id)).toEqual([...now, deleted!].map((e) => e.id));
    },
  );

  it('drops and rebuilds an index file of another layout version', async () => {
    const before = open();
    const items = [message('a'), message('b'), doc('c')];
    await before.log().append(items);
    await before.log().append([deletionOf([items[1]!.id])]);
    await before.close();
    const db = new Database(file);
    db.prepare("UPDATE esdb_index_meta SET value = '0' WHERE key = 'layout_version'").run();
    db.close();

    const { store, starts } = openCounting();
    const again = await rejectionOf(store.log().append([deletionOf([items[1]!.id])]));

    expect(again.code).toBe('ALREADY_DELETED');
    expect(starts).toContain(0n);
    expect(await store.log().get(items[2]!.id)).toEqual({ ...items[2], seq: 2 });
  });

  it('reads the checkpoint again when another process commits to the file: after a reset there, an id appended again is answered, never written twice', async () => {
    const log = open().log();
    const items = [message('a'), message('b'), doc('c')];
    for (const item of items) await log.append([item]);
    // What another process's reset commits (id-index/id-index.ts reset): the memory's rows
    // and checkpoint dropped in one transaction, while this store holds checkpoint 2 in hand.
    // A process would wait for the lock while this store's delayed commit is open; a connection
    // of this thread cannot, so it starts once that commit has landed.
    const db = new Database(file);
    await untilCommitted(db, 2);
    db.transaction(() => {
      const mem = db
        .prepare<[], number>("SELECT mem FROM esdb_index_streams WHERE stream = 'memory-default'")
        .pluck()
        .get();
      db.prepare('DELETE FROM esdb_index_ids WHERE mem = ?').run(mem);
      db.prepare('UPDATE esdb_index_streams SET last_seq = NULL, last_id = NULL WHERE mem = ?').run(
        mem,
      );
    }).immediate();
    db.close();

    // Deciding on the known checkpoint (2) and the emptied rows, the guard would append `a`
    // again at revision 3, and the server would accept it.
    const again = await log.append([items[0]!]);
    const [deleted] = await log.append([deletionOf([items[1]!.id])]);

    expect(again).toEqual([{ ...items[0], seq: 0 }]);
    expect(deleted!.seq).toBe(3);
    expect((await readAll(log)).map((e) => e.id)).toEqual([...items, deleted!].map((e) => e.id));
  });

  it('decides on the rows it has not written yet: a recall of an id appended just before is taken without a read, the same event again is answered and never written twice, and closing writes every row', async () => {
    const { store, starts } = openCounting(file, 600_000);
    const log = store.log();
    const [first] = await log.append([message('a')]);
    const readsBefore = starts.length;
    const [recall] = await log.append([recallOf([first!.id])]);
    const { seq: _seq, ...unsequenced } = first!;
    const again = await log.append([unsequenced as never]);
    const [second] = await log.append([doc('b')]);
    const readsAfter = starts.length;
    await store.close();

    expect(recall!.seq).toBe(1);
    expect(again).toEqual([first]);
    expect(second!.seq).toBe(2);
    // Only the new memory's first append read the stream (to check the index against it).
    expect(readsAfter).toBe(readsBefore);
    expect((await readAll(open().log())).map((e) => e.id)).toEqual(
      [first!, recall!, second!].map((e) => e.id),
    );
    const db = new Database(file, { readonly: true });
    const rows = db.prepare<[], { seq: number }>('SELECT seq FROM esdb_index_ids ORDER BY seq');
    const checkpoint = db.prepare<[], number>('SELECT last_seq FROM esdb_index_streams').pluck();
    expect(rows.all().map((row) => row.seq)).toEqual([0, 1, 2]);
    expect(checkpoint.get()).toBe(2);
    db.close();
  });

  it('keeps invariant 8, a gapless seq and every deletion when three instances share one index file', async () => {
    const { items, state } = await raceDeletionsAgainstRecalls([
      open().log(),
      open().log(),
      open().log(),
    ]);
    // A fourth instance decides on the shared file as the three left it.
    const fourth = open().log();
    for (const item of items) {
      const again = await rejectionOf(fourth.append([deletionOf([item.id])]));
      expect(again.code).toBe('ALREADY_DELETED');
      expect(again.message).toContain(state.deleted[item.id]!.id);
    }
  });
});
