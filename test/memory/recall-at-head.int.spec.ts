/**
 * Invariant 8 on EventStoreDB, where no write lock spans processes: the recall is computed in
 * the store's append turn (`appendAtHead`), at the head the store just read, while this
 * process's own appends of the memory wait. So this process's writes never make a recall
 * compute again (`recallRetries: 0` suffices), and another instance's writes only make it
 * compute again on the newer head. Either way no recall returns content deleted at or before
 * its own seq.
 */
import { replay, type Sequenced } from '../../src/core/index.js';
import {
  bm25Retriever,
  retrievedOf,
  openMemledger,
  type Memledger,
  type MemoryHandle,
  type Retriever,
} from '../../src/memory/index.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

let server: EsdbTestServer;
const ledgers: Memledger[] = [];
const open = (recallRetries?: number, retriever?: Retriever, retrieverTimeoutMs?: number) => {
  const ledger = openMemledger({
    store: openEventStoreDbStore({ connectionString: server.connectionString }),
    ...(recallRetries !== undefined && { recallRetries }),
    ...(retriever !== undefined && { retriever }),
    ...(retrieverTimeoutMs !== undefined && { retrieverTimeoutMs }),
  });
  ledgers.push(ledger);
  return ledger;
};

beforeEach(async () => {
  server = await startEsdbTestServer();
});
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
  await server.close();
});

/** Every recalled id was visible content right before its Recall. */
function expectRecallsOfVisibleContent(log: readonly Sequenced[]): void {
  for (const event of log) {
    if (event.kind !== 'recall') continue;
    const before = replay(log.slice(0, event.seq));
    const visible = new Set([...before.visibleMessages].map((m) => m.id));
    for (const id of event.recalled) expect(visible.has(id)).toBe(true);
  }
}

/** Recalls fired while `writer` appends and deletes: what the recalls settled to. */
async function recallWhileWriting(reader: MemoryHandle, writer: MemoryHandle, rounds: number) {
  const live: string[] = [];
  for (let i = 0; i < 10; i++) {
    live.push((await writer.recordMessage({ speaker: 'user', content: `tea note ${i}` })).id);
  }
  const recalls: Promise<unknown>[] = [];
  for (let round = 0; round < rounds; round++) {
    recalls.push(reader.recall({ query: 'tea note', limit: 5 }));
    const written = writer.recordMessage({ speaker: 'user', content: `tea note x${round}` });
    const victim = live.splice(round % live.length, 1)[0]!;
    const deleted = writer.deleteContent({ targets: [victim], reason: 'moved on' });
    live.push((await written).id);
    await deleted;
  }
  return Promise.allSettled(recalls);
}

/**
 * `rounds` recalls fired while `writer` appends and deletes: none may fail, each is on record,
 * and none returned content deleted before it.
 */
async function expectEveryRecallOnRecord(
  reader: MemoryHandle,
  writer: MemoryHandle,
  rounds: number,
): Promise<void> {
  const results = await recallWhileWriting(reader, writer, rounds);
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  const log = await writer.readEvents();
  expect(log.filter((e) => e.kind === 'recall')).toHaveLength(rounds);
  expectRecallsOfVisibleContent(log);
}

describe('recall on EventStoreDB, computed in the store’s append turn', () => {
  it('is never made to compute again by its own process’s writes (no retries allowed)', async () => {
    const memory = await open(0).memory();
    await expectEveryRecallOnRecord(memory, memory, 60);
  });

  it('computes again on the newer head while another instance writes, and never returns deleted content', async () => {
    await expectEveryRecallOnRecord(await open().memory(), await open().memory(), 60);
  });

  it('brings its read models to the head from the events the store read, in one round trip', async () => {
    const reader = await open().memory();
    const writer = await open().memory();
    await writer.recordMessage({ speaker: 'user', content: 'tea note' });
    await reader.recall({ query: 'tea note' });
    await writer.recordMessage({ speaker: 'user', content: 'more tea' });
    await writer.recordMessage({ speaker: 'user', content: 'tea again' });
    const reads = server.rpcCount('Read');
    const { items } = await reader.recall({ query: 'tea' });
    // One read by the store's turn; the read models take what it read.
    expect(server.rpcCount('Read') - reads).toBe(1);
    expect(items).toHaveLength(3);
  });

  it('lets an asynchronous retriever read the memory while the turn waits for it', async () => {
    const ledger = open(undefined, {
      // A hybrid retriever that looks each hit up by id before it answers.
      async retrieve(request) {
        const { ids } = retrievedOf(await bm25Retriever.retrieve(request));
        const memory = await ledger.memory();
        for (const id of ids) expect((await memory.getEvent(id)).deleted).toBe(false);
        return ids;
      },
    });
    const memory = await ledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'tea note' });
    const [{ items }] = await Promise.all([
      memory.recall({ query: 'tea note' }),
      memory.recordMessage({ speaker: 'user', content: 'something else entirely' }),
    ]);
    expect(items).toHaveLength(1);
  });

  it('fails a recall whose retriever appends to its own memory with RETRIEVER_TIMEOUT, instead of waiting forever for the turn the retriever runs in; the append then lands', async () => {
    let noted: Promise<unknown> | undefined;
    const ledger = open(
      undefined,
      {
        // Waits for its own append, which waits for the append turn this retriever holds.
        async retrieve(request) {
          const memory = await ledger.memory();
          noted = memory.recordMessage({ speaker: 'tool', content: `looked up ${request.query}` });
          await noted;
          return bm25Retriever.retrieve(request);
        },
      },
      300,
    );
    const memory = await ledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'tea note' });

    const error = await memory.recall({ query: 'tea note' }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({
      code: 'RETRIEVER_TIMEOUT',
      message: expect.stringContaining('300 ms') as string,
    });
    await noted;
    const kinds = (await memory.readEvents()).map((event) => event.kind);
    expect(kinds).toEqual(['message', 'message']);
  });
});
