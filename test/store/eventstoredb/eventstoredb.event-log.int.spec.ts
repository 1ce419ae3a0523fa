import { openEventStoreDbStore } from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { describeEventLogContract } from '../../store-contract/index.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';

let server: EsdbTestServer | undefined;
const open = () => openEventStoreDbStore({ connectionString: server!.connectionString });

describeEventLogContract('EventStoreDB (in-process test server)', {
  open: async () => {
    server = await startEsdbTestServer();
    return open();
  },
  reopen: async (store) => {
    await store.close();
    return open();
  },
  // Its own client and its own id index: another process's view of the same server.
  openPeer: async () => open(),
  cleanup: async () => {
    await server?.close();
    server = undefined;
  },
});
