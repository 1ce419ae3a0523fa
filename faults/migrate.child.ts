/**
 * Opens a SQLite file with the current store, which migrates a memledger 0.1.0 file (layout
 * version 1) in place, then closes it; the migration kill trials kill it with SIGKILL part-way.
 * Prints `opening` right before the open and `opened` once it returned.
 * Usage: node --import tsx faults/migrate.child.ts <path>
 */
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';

const [path] = process.argv.slice(2);
process.stdout.write('opening\n');
const store = openSqliteStore({ path: path! });
process.stdout.write('opened\n');
await store.close();
