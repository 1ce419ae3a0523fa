/**
 * Run by bench/idle-memories.bench.ts in a fresh process: opens memledger on a SQLite file,
 * measures the empty process, then touches `count` memories (a state page each, an append to
 * every tenth, and a live `applied$` subscription per open memory as the Nest event bridge
 * keeps), idles `idleMs` and then twice as long again, and prints the figures as JSON.
 * Usage: node --import tsx idle-memories.child.ts <path> <count> <idleMs>
 */
import { performance } from 'node:perf_hooks';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';

const [path, count, idleMs] = process.argv.slice(2).map((a, i) => (i === 0 ? a : Number(a))) as [
  string,
  number,
  number,
];
const memledger = openMemledger({ store: openSqliteStore({ path }) });
const subscriptions: { unsubscribe(): void }[] = [];
memledger.onMemoryOpened((memory) => subscriptions.push(memory.applied$.subscribe(() => {})));

/** CPU share of one core and RSS over `ms` of idling. */
async function idle(ms: number) {
  global.gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(cpu);
  return {
    cpuShare: (used.user + used.system) / 1000 / (performance.now() - start),
    rss: process.memoryUsage().rss,
  };
}

const empty = await idle(idleMs);
const touchStart = performance.now();
for (let i = 0; i < count; i++) {
  const memory = await memledger.memory(`m-${i}`);
  if (i % 10 === 0) await memory.recordMessage({ speaker: 'user', content: `hello ${i}` });
  await memory.statePage({ limit: 10 });
}
const touchMs = performance.now() - touchStart;
const touched = await idle(idleMs);
// Twice as long again: V8 gives the heap it grew while touching back only once the process has
// been idle for a while (its memory reducer), which a 10 s window may end before.
const settled = await idle(2 * idleMs);
const heap = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ empty, touched, settled, heapUsed: heap.heapUsed, heapTotal: heap.heapTotal, touchMs, open: memledger.openMemories().length })}\n`,
);
for (const s of subscriptions) s.unsubscribe();
await memledger.close();
