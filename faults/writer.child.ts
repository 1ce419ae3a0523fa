/**
 * A library writer for the kill -9 trials: `openMemledger` over a SQLite file, appending
 * messages and documents with its own ids, one at a time, and printing each id on stdout once
 * its append promise resolved (stdout is a pipe, written synchronously on Linux, so a printed
 * id was acknowledged before any kill). Stops by itself after `maxAppends` or 60 s.
 * Usage: node --import tsx faults/writer.child.ts <path> <FULL|NORMAL> <memoryId> <maxAppends>
 */
import { v7 as uuidv7 } from 'uuid';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';

const [path, synchronous, memoryId, maxAppends] = process.argv.slice(2);
const memledger = openMemledger({
  store: openSqliteStore({
    path: path!,
    synchronous: synchronous === 'NORMAL' ? 'NORMAL' : 'FULL',
  }),
});
const memory = await memledger.memory(memoryId);
process.stdout.write('ready\n');
const deadline = Date.now() + 60_000;
for (let i = 0; i < Number(maxAppends) && Date.now() < deadline; i++) {
  const id = uuidv7();
  if (i % 5 === 4) {
    await memory.addDocument({ id, name: `doc ${i}`, text: `document ${i} of the kill trial` });
  } else {
    await memory.recordMessage({ id, speaker: 'writer', content: `message ${i} ${id}` });
  }
  process.stdout.write(`${id}\n`);
}
await memledger.close();
