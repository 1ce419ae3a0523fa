/**
 * Run as a separate process by the id index tests: appends `count` messages one at a time to the
 * memory `default` on the EventStoreDB at `connectionString`, with its id index in the file
 * `idIndex` and a commit delay of `delayMs`, prints each stored event as a JSON line, then waits
 * (never closing the store) until the parent kills it.
 * Usage: node --import tsx esdb-index-writer-child.ts <connectionString> <idIndex> <count> <delayMs>
 */
import { createMessage } from '../../src/core/index.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';

const [connectionString, idIndex, count, delayMs] = process.argv.slice(2);
const store = openEventStoreDbStore(
  { connectionString: connectionString! },
  { idIndex: idIndex!, idIndexCommitDelayMs: Number(delayMs) },
);
const log = store.log();
for (let i = 0; i < Number(count); i++) {
  const [stored] = await log.append([
    createMessage({ speaker: 'child', content: `child says ${i}` }),
  ]);
  process.stdout.write(`${JSON.stringify(stored)}\n`);
}
setInterval(() => undefined, 60_000);
