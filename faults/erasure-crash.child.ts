/**
 * A writer that erases, for the erasure kill trials (faults/erasure-crash.fault.ts): a memledger
 * over a SQLite file sealed with its key store, whose key store is wrapped so that the process
 * kills itself (SIGKILL) at one point of an erasure — no production code knows of it.
 *
 *   begin     right after `keys.beginErasure` (the intent recorded, nothing appended)
 *   append    right after the Erasure's append (before `keys.completeErasure`)
 *   complete  right after `keys.completeErasure` (before the append returns)
 *   loop      no hook: erases item after item until the parent kills it at a random moment
 *
 * Each item's words are `canaryOf(id)`, searched for once before the erasure (so they are in the
 * search index's pages). It prints `item <id>` once the item is written and
 * (loop) `erased <id>` once its erasure returned. Repairs at open run before the hook is armed.
 * Usage: node --import tsx faults/erasure-crash.child.ts <path> <masterKeyHex> <memoryId> <point> <trial>
 */
import { v7 as uuidv7 } from 'uuid';
import { openSqliteKeyStore, masterKeyFromBytes, type KeyStore } from '../src/keys/index.js';
import { openMemledger } from '../src/memory/index.js';
import { sealedStore } from '../src/store/sealed/sealed-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { canaryOf } from './erasure-crash.check.js';

const [path, keyHex, memoryId, point, trialText] = process.argv.slice(2);
const trial = Number(trialText);
let armed = false;
const die = (at: string) => {
  if (armed && point === at) process.kill(process.pid, 'SIGKILL');
};

/** The real key store with the kill hook around the two erasure steps. */
function killingKeys(keys: KeyStore): KeyStore {
  return {
    ...keys,
    description: keys.description,
    keysFor: (m, ids) => keys.keysFor(m, ids),
    lookup: (m, ids) => keys.lookup(m, ids),
    beginErasure(m, erasureId, targets) {
      keys.beginErasure(m, erasureId, targets);
      die('begin');
    },
    completeErasure(m, erasureId) {
      // Called right after the append resolved: the Erasure is in the log, the key alive.
      die('append');
      keys.completeErasure(m, erasureId);
      die('complete');
    },
    abandonErasure: (m, erasureId) => keys.abandonErasure(m, erasureId),
    pendingErasures: () => keys.pendingErasures(),
    close: () => keys.close(),
  };
}

const keys = openSqliteKeyStore(`${path}.keys`, {
  masterKey: masterKeyFromBytes(Buffer.from(keyHex!, 'hex')),
  create: true,
});
const store = sealedStore(openSqliteStore({ path: path! }), killingKeys(keys));
const memledger = openMemledger({ store });
const memory = await memledger.memory(memoryId);
await store.ready;
armed = true;
process.stdout.write('ready\n');

/** One erasure: two acts (delete, then erase) on even turns, delete-and-erase on odd ones. */
async function eraseOne(turn: number): Promise<void> {
  const id = uuidv7();
  await memory.recordMessage({ id, speaker: 'user', content: `words ${canaryOf(id)} here` });
  // Found by a search first, as in use: its words are then in the search index's pages too,
  // the plain-text copy an erasure must scrub from the files.
  await memory.search(canaryOf(id));
  process.stdout.write(`item ${id}\n`);
  if (turn % 2 === 0) {
    await memory.deleteContent({ targets: [id], reason: 'asked to forget' });
    await memory.eraseContent({ targets: [id], reason: 'erasure request' });
  } else {
    await memory.deleteAndErase({ targets: [id], reason: 'forget me' });
  }
  process.stdout.write(`erased ${id}\n`);
}

if (point === 'loop') {
  const deadline = Date.now() + 60_000;
  for (let turn = trial; Date.now() < deadline; turn++) await eraseOne(turn);
} else {
  await eraseOne(trial);
  process.stdout.write('no kill\n');
}
await memledger.close();
