/**
 * `npm run bench`: every benchmark, each reporting against a baseline measured in the same run.
 * Figures are printed and written to bench/results/*.json. Not part of `npm test`: speed is
 * measured here, never asserted with timers in tests.
 *
 * `npm run bench -- --quick` runs each at a small size (minutes, for a smoke check);
 * `npm run bench -- --large` adds the 10 M-event memory open (long: it builds the file first).
 */
import { benchDisk } from './disk.bench.js';
import { benchEventStoreDbAppend } from './eventstoredb-append.bench.js';
import { benchIdleMemories } from './idle-memories.bench.js';
import { benchOpenMemory } from './open-memory.bench.js';
import { benchRecall } from './recall.bench.js';
import { benchReplay } from './replay.bench.js';
import { benchSearch } from './search.bench.js';
import { benchSqliteAppend } from './sqlite-append.bench.js';
import { benchStateAtSeq } from './state-at-seq.bench.js';

const quick = process.argv.includes('--quick');
const large = process.argv.includes('--large');
console.log(`memledger benchmarks (${quick ? 'quick' : 'full'}) on Node ${process.version}`);
await benchReplay(quick ? 100_000 : 1_000_000);
await benchSqliteAppend(quick ? 200 : 1000, 1, 'FULL');
await benchSqliteAppend(quick ? 1000 : 5000, 1, 'NORMAL');
await benchSqliteAppend(quick ? 20 : 100, 100, 'NORMAL');
await benchSqliteAppend(quick ? 20 : 100, 100, 'FULL');
await benchEventStoreDbAppend(quick ? 200 : 1000);
await benchDisk(quick ? 10_000 : 100_000);
await benchRecall(quick ? 10_000 : 100_000, quick ? 100 : 300);
await benchSearch(quick ? 10_000 : 100_000, quick ? 100 : 300);
await benchStateAtSeq(quick ? 20_000 : 100_000, quick ? 20 : 40);
await benchIdleMemories(quick ? 1000 : 10_000, quick ? 2000 : 10_000);
await benchOpenMemory(quick ? 100_000 : 1_000_000);
if (large) await benchOpenMemory(10_000_000);
