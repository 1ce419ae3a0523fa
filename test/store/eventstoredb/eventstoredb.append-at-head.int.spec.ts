/**
 * `appendAtHead` on EventStoreDB: events computed at the stream's head, appended expecting it.
 * The memory's mutex holds this process's own appends back while `compute` runs, so only another
 * process (here: another store instance) can move the stream and make it compute again.
 */
import type { MemoryEvent, Sequenced } from '../../../src/core/index.js';
import type { EventLog, MemoryStore } from '../../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { readAll, rejectionOf } from '../../support/collect.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';
import { message, recallOf } from '../../support/events.js';

let server: EsdbTestServer;
const stores: MemoryStore[] = [];
const open = () => {
  const store = openEventStoreDbStore({ connectionString: server.connectionString });
  stores.push(store);
  return store;
};
/** The store's `appendAtHead`, which the EventStoreDB store always has. */
const atHead = (log: EventLog) => log.appendAtHead!.bind(log);

beforeEach(async () => {
  server = await startEsdbTestServer();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await server.close();
});

describe('EventStoreDB store: appends computed at the head', () => {
  it('gives compute the head it read, another instance’s appends included, and appends right after it', async () => {
    const log = open().log();
    const peer = open().log();
    const [first] = await log.append([message('mine')]);
    await peer.append([message('the peer’s'), message('and another')]);
    const heads: (number | null)[] = [];
    const stored = await atHead(log)(async (head) => {
      heads.push(head);
      return [recallOf([first!.id])];
    }, 3);
    expect(heads).toEqual([2]);
    expect(stored!.map((e) => e.seq)).toEqual([3]);
  });

  it('hands compute the events it read on the way to the head', async () => {
    const log = open().log();
    const peer = open().log();
    const [first] = await log.append([message('mine')]);
    const theirs = await peer.append([message('the peer’s'), message('and another')]);
    let given: readonly Sequenced[] = [];
    await atHead(log)(async (_head, read) => {
      given = read;
      return [recallOf([first!.id])];
    }, 3);
    expect(given).toEqual(theirs);
  });

  it('computes again on the newer head when another instance appended meanwhile', async () => {
    const log = open().log();
    const peer = open().log();
    const [first] = await log.append([message('mine')]);
    const heads: (number | null)[] = [];
    const stored = await atHead(log)(async (head) => {
      heads.push(head);
      if (heads.length === 1) await peer.append([message('the peer got in first')]);
      return [recallOf([first!.id])];
    }, 3);
    expect(heads).toEqual([0, 1]);
    expect(stored!.map((e) => e.seq)).toEqual([2]);
    expect((await readAll(log)).map((e) => e.kind)).toEqual(['message', 'message', 'recall']);
  });

  it('holds this process’s own appends back until the computed events are written', async () => {
    const log = open().log();
    const [first] = await log.append([message('mine')]);
    let release!: () => void;
    const computing = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const computed = atHead(log)(async () => {
      await computing;
      order.push('computed');
      return [recallOf([first!.id])];
    }, 1);
    const own = log.append([message('asked for while computing')]).then((stored) => {
      order.push('own append');
      return stored;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const [recall] = (await computed)!;
    const [later] = await own;
    expect(order).toEqual(['computed', 'own append']);
    expect([recall!.seq, later!.seq]).toEqual([1, 2]);
  });

  it('gives up with APPEND_CONFLICT after `attempts` when the stream never holds still, writing nothing of its own', async () => {
    const log = open().log();
    const peer = open().log();
    const [first] = await log.append([message('mine')]);
    let calls = 0;
    const error = await rejectionOf(
      atHead(log)(async () => {
        calls += 1;
        await peer.append([message(`the peer again ${calls}`)]);
        return [recallOf([first!.id])];
      }, 3),
    );
    expect(error.code).toBe('APPEND_CONFLICT');
    expect(calls).toBe(3);
    expect((await readAll(log)).filter((e) => e.kind === 'recall')).toEqual([]);
  });

  it('appends nothing when compute returns undefined, and refuses what the guard refuses', async () => {
    const log = open().log();
    const [first] = await log.append([message('mine')]);
    expect(await atHead(log)(async () => undefined, 3)).toBeUndefined();
    const unknown: MemoryEvent = recallOf(['0193a4c2-0000-7000-8000-00000000dead']);
    const error = await rejectionOf(atHead(log)(async () => [unknown], 3));
    expect(error.code).toBe('RECALL_TARGET_UNKNOWN');
    const all: Sequenced[] = await readAll(log);
    expect(all.map((e) => e.id)).toEqual([first!.id]);
  });
});
