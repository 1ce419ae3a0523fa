/**
 * Run as a separate process by the SQLite tests: appends `count` messages one at a time to the
 * memory `default` of the SQLite file `path`, to prove cross-process appends and subscriptions.
 * Usage: node --import tsx sqlite-append-child.ts <path> <count> <label>
 */
import { createMessage } from '../../src/core/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const [path, count, label] = process.argv.slice(2);
const store = openSqliteStore({ path: path! });
const log = store.log();
for (let i = 0; i < Number(count); i++) {
  await log.append([createMessage({ speaker: label!, content: `${label} says ${i}` })]);
}
await store.close();
