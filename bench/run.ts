/**
 * `npm run bench`: every benchmark, each reporting against a baseline measured in the same run.
 * Figures are printed and written to bench/results/*.json. Not part of `npm test`: speed is
 * measured here, never asserted with timers in tests.
 */
import { benchEventStoreDbAppend } from './eventstoredb-append.bench.js';
import { benchRecall } from './recall.bench.js';
import { benchReplay } from './replay.bench.js';
import { benchSqliteAppend } from './sqlite-append.bench.js';
import { benchStateAtSeq } from './state-at-seq.bench.js';

const quick = process.argv.includes('--quick');
console.log(`memledger benchmarks (${quick ? 'quick' : 'full'}) on Node ${process.version}`);
await benchReplay(quick ? 100_000 : 1_000_000);
await benchSqliteAppend(quick ? 1000 : 5000, 1, 'NORMAL');
await benchSqliteAppend(quick ? 200 : 1000, 1, 'FULL');
await benchSqliteAppend(quick ? 100 : 500, 100, 'NORMAL');
await benchEventStoreDbAppend(quick ? 200 : 1000);
await benchRecall(quick ? 10_000 : 100_000, quick ? 100 : 300);
await benchStateAtSeq(quick ? 20_000 : 100_000, quick ? 20 : 40);
