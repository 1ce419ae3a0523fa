/**
 * Run as a separate process by the migration crash test: opens the SQLite store at `path`
 * (which migrates a 0.1.0 file) and closes it; the test kills it with SIGKILL part-way.
 * Usage: node --import tsx open-store.child.ts <path>
 */
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';

const [path] = process.argv.slice(2);
process.stdout.write('opening\n');
const store = openSqliteStore({ path: path! });
process.stdout.write('opened\n');
await store.close();
