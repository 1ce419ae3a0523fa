/**
 * The EventStoreDB store writes the appends waiting on one memory in one server append, each
 * decided in turn (src/store/eventstoredb/eventstoredb.append-queue.ts). Server appends are
 * counted by the test server, which here offers only the unary `Append` (one call per append).
 */
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { readAll } from '../../support/collect.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';
import { deletionOf, message } from '../../support/events.js';

let server: EsdbTestServer;
let store: MemoryStore;
beforeAll(async () => {
  server = await startEsdbTestServer({ advertiseBatchAppend: false });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  store = openEventStoreDbStore({ connectionString: server.connectionString });
});
afterEach(async () => {
  await store.close();
});

const codeOf = (result: PromiseSettledResult<unknown>) =>
  result.status === 'rejected' ? (result.reason as { code: string }).code : 'stored';

describe('EventStoreDB appends waiting on one memory', () => {
  it('go to the server in one append, each caller answered with its own events and seqs', async () => {
    const log = store.log('together');
    await log.append([message('first')]);
    const before = server.rpcCount('Append');
    const first = message('one');
    const stored = await Promise.all([
      log.append([first]),
      log.append([message('two'), message('three')]),
      log.append([deletionOf([first.id])]),
      log.append([first]),
    ]);
    expect(server.rpcCount('Append') - before).toBe(1);
    expect(stored.map((events) => events.map((e) => e.seq))).toEqual([[1], [2, 3], [4], [1]]);
    expect((await readAll(log)).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('answer a refused append alone: the others of the batch are stored', async () => {
    const log = store.log('refusals');
    const original = message('original');
    await log.append([original]);
    const results = await Promise.allSettled([
      log.append([message('kept 1')]),
      log.append([{ ...original, content: 'changed' }]),
      log.append([message('refused')], { expectedLastSeq: 0 }),
      log.append([deletionOf(['00000000-0000-7000-8000-000000000000'])]),
      log.append([message('kept 2')]),
    ]);
    expect(results.map(codeOf)).toEqual([
      'stored',
      'ID_CONFLICT',
      'EXPECTED_SEQ_MISMATCH',
      'DELETION_TARGET_UNKNOWN',
      'stored',
    ]);
    const events = await readAll(log);
    expect(events.map((e) => [e.seq, e.kind === 'message' && e.content])).toEqual([
      [0, 'original'],
      [1, 'kept 1'],
      [2, 'kept 2'],
    ]);
  });

  it('split into server appends that fit its maximum append size', async () => {
    const small = await startEsdbTestServer({ advertiseBatchAppend: false, maxAppendSize: 4096 });
    const limited = openEventStoreDbStore(
      { connectionString: small.connectionString },
      { maxAppendBytes: 4096 },
    );
    try {
      const log = limited.log('sized');
      await log.append([message('first')]);
      const before = small.rpcCount('Append');
      const words = 'x'.repeat(1500);
      const stored = await Promise.all([1, 2, 3, 4].map(() => log.append([message(words)])));
      // Two of ~1.6 KB fit in 4 KiB, not three.
      expect(small.rpcCount('Append') - before).toBe(2);
      expect(stored.map((events) => events[0]!.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      await limited.close();
      await small.close();
    }
  });

  it('are appended one at a time when the server refuses them together as too large', async () => {
    const small = await startEsdbTestServer({ advertiseBatchAppend: false, maxAppendSize: 4096 });
    // The store does not know the server's limit (1 MiB assumed) until a refusal tells it.
    const unaware = openEventStoreDbStore({ connectionString: small.connectionString });
    try {
      const log = unaware.log('too-large');
      await log.append([message('first')]);
      const words = 'x'.repeat(1500);
      const stored = await Promise.all([1, 2, 3].map(() => log.append([message(words)])));
      expect(stored.map((events) => events[0]!.seq)).toEqual([1, 2, 3]);
      expect((await readAll(log)).length).toBe(4);
    } finally {
      await unaware.close();
      await small.close();
    }
  });
});
