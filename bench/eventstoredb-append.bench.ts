/**
 * EventStoreDB adapter overhead: the same appends through openEventStoreDbStore and through the
 * raw client (appendToStream with expected revision), both over gRPC to the in-process test
 * server (no real EventStoreDB runs here). The adapter runs the guard on its id index and reads
 * its write back (to beat the server's own idempotency), so an uncontended append costs 2 round
 * trips against the raw client's 1.
 */
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { encodeEvent } from '../src/store/codec.js';
import { openEventStoreDbStore } from '../src/store/eventstoredb/eventstoredb.event-log.js';
import { startEsdbTestServer } from '../test/support/esdb-test-server/index.js';
import { report, syntheticLog, timeMs } from './support.js';

export async function benchEventStoreDbAppend(appends = 500): Promise<void> {
  const server = await startEsdbTestServer();
  const events = syntheticLog(appends, false);
  try {
    const client = EventStoreDBClient.connectionString(server.connectionString);
    const rawMs = await timeMs(async () => {
      for (let i = 0; i < events.length; i++) {
        const { id, type, data } = encodeEvent(events[i]!);
        await client.appendToStream('raw-default', jsonEvent({ id, type, data: { ...data } }), {
          expectedRevision: i === 0 ? 'no_stream' : BigInt(i - 1),
        });
      }
    });
    await client.dispose();

    const store = openEventStoreDbStore({ connectionString: server.connectionString });
    const log = store.log();
    const adapterMs = await timeMs(async () => {
      for (const event of events) await log.append([event]);
    });
    await store.close();
    report('eventstoredb-append', {
      appends,
      server: 'in-process test server (gRPC on 127.0.0.1)',
      'raw client ms': rawMs,
      'adapter ms': adapterMs,
      'adapter appends/s': Math.round(appends / (adapterMs / 1000)),
      'adapter / raw time ratio': adapterMs / rawMs,
      'target ratio (DESIGN)': '<= 1.1-1.2',
    });
  } finally {
    await server.close();
  }
}
