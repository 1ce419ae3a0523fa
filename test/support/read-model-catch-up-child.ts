/**
 * Run as a separate process by the read-model crash tests: opens memledger on the SQLite file
 * `path` and catches the read models of `memoryId` up with its log, printing each chunk applied,
 * until the parent kills it. Usage: node --import tsx read-model-catch-up-child.ts <path> <memoryId>
 */
import { openMemledger } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const [path, memoryId] = process.argv.slice(2);
const memledger = openMemledger({ store: openSqliteStore({ path: path! }) });
const memory = await memledger.memory(memoryId);
process.stdout.write('ready\n');
await memory.rebuild((applied) => process.stdout.write(`applied ${applied}\n`));
process.stdout.write('done\n');
await memledger.close();
