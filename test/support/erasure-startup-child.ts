/**
 * Starts the application as `npm start` does — the store and its key store from the environment
 * (`storeConfigFromEnv`) — on 127.0.0.1 and a free port, prints `listening <url>` and stops.
 * A start-up failure is logged by the application and ends the process with code 1.
 * Usage: MEMLEDGER_DB=... MEMLEDGER_MASTER_KEY=... node --import tsx test/support/erasure-startup-child.ts
 */
import { startServer } from '../../src/http/index.js';
import { storeConfigFromEnv } from '../../src/store/open-store.js';

const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  store: storeConfigFromEnv(process.env),
});
process.stdout.write(`listening ${server.url}\n`);
await server.close();
process.exit(0);
