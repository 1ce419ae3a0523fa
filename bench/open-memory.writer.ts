/**
 * The writer of bench/open-memory.bench.ts: `open-memory.writer.ts <file> true|false` appends
 * one event at a time until killed (the parent sends SIGKILL) and prints `writing` once the first
 * append committed. With `false` it appends through the bare store, so the read models fall
 * behind the log. Its speed is not measured: it only leaves a file as a crash leaves it.
 */
import { performance } from 'node:perf_hooks';

/** Most a writer runs if its parent never kills it (the parent died first). */
const WRITER_LIFETIME_MS = 120_000;

const [file, withReadModels] = process.argv.slice(2);
if (!file) throw new Error('usage: open-memory.writer.ts <file> true|false');
await write(file, withReadModels !== 'false');

async function write(path: string, withReadModels: boolean): Promise<void> {
  const { openMemledger } = await import('../src/memory/index.js');
  const { openSqliteStore } = await import('../src/store/sqlite/sqlite.event-log.js');
  const { proseText, seededRandom } = await import('./support.js');
  // Appends resolve without yielding to the event loop, so a timer would never fire: check the clock.
  const stillWanted = () => performance.now() < WRITER_LIFETIME_MS || process.exit(3);
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const random = seededRandom(process.pid);
  if (!withReadModels) {
    const { createMessage } = await import('../src/core/index.js');
    const log = store.log();
    for (let i = 0; stillWanted(); i++) {
      await log.append([createMessage({ speaker: 'user', content: proseText(random, 170) })]);
      if (i === 0) console.log('writing');
    }
    return;
  }
  const memory = await openMemledger({ store }).memory();
  const mine: string[] = [];
  for (let i = 0; stillWanted(); i++) {
    const r = random();
    if (r < 0.7) {
      mine.push(
        (await memory.recordMessage({ speaker: 'user', content: proseText(random, 170) })).id,
      );
    } else if (r < 0.85) {
      mine.push(
        (await memory.addDocument({ name: `live-${i}.md`, text: proseText(random, 900) })).id,
      );
    } else if (r < 0.95) {
      await memory.recall({ query: proseText(random, 20), limit: 3 });
    } else if (mine.length > 0) {
      await memory.deleteContent({ targets: [mine.pop()!], reason: 'bench' });
    }
    if (i === 0) console.log('writing');
  }
}
