/**
 * A memledger server for the fault suite: `startServer(config)` on 127.0.0.1 and a free port,
 * with the JSON config given as the first argument. Prints `listening <url>`; SIGTERM closes it.
 * Usage: node --import tsx faults/server.child.ts '<HttpConfig JSON>'
 *
 * Diagnostics (the fault suite only, never the product): with `MEMLEDGER_FAULT_MEMORY_MS` set,
 * the child prints `memory <json>` (process.memoryUsage(), after a full GC when
 * `MEMLEDGER_FAULT_GC=1`) every that many ms, so a fault can say what its RSS was made of; with
 * `MEMLEDGER_FAULT_HEAPSNAPSHOT_DIR` set, SIGUSR2 writes a heap snapshot there; with
 * `MEMLEDGER_FAULT_STALL_MS` set, every request slower than that is printed as `stall <json>` with
 * what it waited on (faults/stall.probe.ts).
 */
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { startServer, type HttpConfig } from '../src/http/index.js';
import { installStallProbe } from './stall.probe.js';

const config = JSON.parse(process.argv[2] ?? '{}') as HttpConfig;
const stallMs = Number(process.env.MEMLEDGER_FAULT_STALL_MS ?? 0);
// Before the server opens its store: the probe times every transaction function made after it.
if (stallMs > 0) installStallProbe(stallMs, (line) => process.stdout.write(`${line}\n`));
const server = await startServer({ logger: false, ...config, host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${server.url}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

const memoryMs = Number(process.env.MEMLEDGER_FAULT_MEMORY_MS ?? 0);
if (memoryMs > 0) {
  let gc: (() => void) | undefined;
  if (process.env.MEMLEDGER_FAULT_GC === '1') {
    // --expose-gc for this child only: the flag, then a fresh context that sees `gc`.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  setInterval(() => {
    gc?.();
    process.stdout.write(`memory ${JSON.stringify(process.memoryUsage())}\n`);
  }, memoryMs).unref();
}
const snapshots = process.env.MEMLEDGER_FAULT_HEAPSNAPSHOT_DIR;
if (snapshots !== undefined) {
  process.on('SIGUSR2', () => {
    const file = writeHeapSnapshot(join(snapshots, `server-${Date.now()}.heapsnapshot`));
    process.stdout.write(`heapsnapshot ${file}\n`);
  });
}
