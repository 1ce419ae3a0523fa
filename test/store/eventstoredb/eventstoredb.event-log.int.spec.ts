import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// The same contract with the id index in a file: a reopened store resumes from the file's
// checkpoints, and a peer (another process's view) shares the file through its own connection.
let dir: string | undefined;
const openOnFile = () =>
  openEventStoreDbStore(
    { connectionString: server!.connectionString },
    { idIndex: join(dir!, 'index', 'esdb-index.db') },
  );

describeEventLogContract('EventStoreDB with an id index file', {
  open: async () => {
    server = await startEsdbTestServer();
    dir = mkdtempSync(join(tmpdir(), 'memledger-esdb-index-'));
    return openOnFile();
  },
  reopen: async (store) => {
    await store.close();
    return openOnFile();
  },
  openPeer: async () => openOnFile(),
  cleanup: async () => {
    await server?.close();
    server = undefined;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  },
});
