/**
 * A memledger server for the fault suite: `startServer(config)` on 127.0.0.1 and a free port,
 * with the JSON config given as the first argument. Prints `listening <url>`; SIGTERM closes it.
 * Usage: node --import tsx faults/server.child.ts '<HttpConfig JSON>'
 */
import { startServer, type HttpConfig } from '../src/http/index.js';

const config = JSON.parse(process.argv[2] ?? '{}') as HttpConfig;
const server = await startServer({ logger: false, ...config, host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${server.url}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
