/**
 * `npm run faults`: the fault suite of issue 9. Each test attacks a running memledger (kill -9,
 * a store server going away, fuzzed requests, stuck stream clients, several servers on one file,
 * sustained load), prints one row of a table and writes `faults/results/<name>.json`.
 * Everything talks to 127.0.0.1 only; every loop is bounded in count and time; every child
 * process is started and killed by this suite. Exit code 1 when a target is missed.
 *
 *   npm run faults                        full sizes (about 32 minutes on 2 cores)
 *   npm run faults -- --quick             small sizes (a smoke run, about a minute)
 *   npm run faults -- --trials 20         kill -9 trials per target (default 100; migrations: 20)
 *   npm run faults -- --only fuzz,load    some tests only (names as in the table)
 *   npm run faults -- --only erasure-crash  kill -9 during erasures (--trials: kills per point, default 50)
 *   npm run faults -- --only erasure-reader  an 8 s reader across an erasure, kill -9, restart, scan
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { erasureCrash } from './erasure-crash.fault.js';
import { erasureReader } from './erasure-reader.fault.js';
import { esdbRestarts } from './esdb-restart.fault.js';
import { fuzzRequests } from './fuzz.fault.js';
import { killDuringMigration } from './kill-migration.fault.js';
import { killHttpServer, killLibraryWriter } from './kill.fault.js';
import { loadTest } from './load.fault.js';
import { sharedFile } from './shared-file.fault.js';
import { stuckSseClients } from './sse-stuck.fault.js';
import { writeResult, type FaultResult } from './support.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const quick = args.includes('--quick');
const trials = Number(option('--trials') ?? (quick ? 3 : 100));
// A 100k-event migration takes seconds, not milliseconds: 20 trials unless --trials says otherwise.
const migrationTrials = Number(option('--trials') ?? (quick ? 3 : 20));
// Kills at each of four points of an erasure (three hooks and a random moment): 50 each.
const erasureTrials = Number(option('--trials') ?? (quick ? 3 : 50));
const only = option('--only')?.split(',');

const TESTS: Record<string, () => Promise<FaultResult>> = {
  'kill-sqlite-library': () => killLibraryWriter(trials),
  'kill-sqlite-http': () => killHttpServer(trials),
  'kill-sqlite-migration': () => killDuringMigration(migrationTrials, quick ? 5_000 : 100_000),
  'erasure-crash': () => erasureCrash(erasureTrials),
  // A reader holding an old snapshot across an erasure, kill -9 while it holds, restart (the
  // smoke run of test/erasure/erasure-reader.e2e.spec.ts covers --quick).
  'erasure-reader': () => erasureReader('sqlite', 8000),
  'erasure-reader-esdb': () => erasureReader('eventstoredb', 8000),
  'esdb-restart': () => esdbRestarts(quick ? 5 : 50),
  // The same HTTP kill trials and fuzzing with the server on EventStoreDB (the test server).
  'kill-esdb-http': () => killHttpServer(trials, 'eventstoredb'),
  fuzz: () => fuzzRequests(quick ? 400 : 10_000),
  'fuzz-esdb': () => fuzzRequests(quick ? 400 : 10_000, 'eventstoredb'),
  'sse-stuck': () => stuckSseClients(quick ? 3 : 10, quick ? 5_000 : 60_000),
  'sse-stuck-esdb': () => stuckSseClients(quick ? 3 : 10, quick ? 5_000 : 60_000, 'eventstoredb'),
  'shared-file': () => sharedFile(quick ? 5_000 : 30_000),
  'shared-esdb': () => sharedFile(quick ? 5_000 : 30_000, 'eventstoredb'),
  load: () => loadTest(16, quick ? 5 : 60, quick ? 1 : 10),
  // The same load with the server on EventStoreDB: the test server runs in this process, beside
  // autocannon, so the two share the cores with the server child.
  'load-esdb': () => loadTest(16, quick ? 5 : 60, quick ? 1 : 10, 'eventstoredb'),
};

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
console.log(`memledger fault suite (${quick ? 'quick' : 'full'}) on ${machine}\n`);
const results: FaultResult[] = [];
/** Tests with a smoke spec of their own: a --quick run leaves them out unless --only names them. */
const OWN_SMOKE = new Set(['erasure-reader', 'erasure-reader-esdb']);
for (const [name, run] of Object.entries(TESTS)) {
  if (only && !only.includes(name)) continue;
  if (quick && !only && OWN_SMOKE.has(name)) continue;
  const started = Date.now();
  let result: FaultResult;
  try {
    result = await run();
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    result = {
      name,
      size: '-',
      target: '-',
      passed: false,
      summary: `crashed: ${message}`,
      figures: {},
    };
  }
  result = { ...result, figures: { ...result.figures, seconds: (Date.now() - started) / 1000 } };
  writeResult(result);
  results.push(result);
  console.log(`${result.passed ? 'met   ' : 'MISSED'} ${name} (${result.size}): ${result.summary}`);
}

const cell = (text: string) => text.replaceAll('|', '\\|');
console.log('\n| test | size | target | result | |\n|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.size} | ${cell(r.target)} | ${cell(r.summary)} | ${r.passed ? 'met' : 'MISSED'} |`,
  );
}
const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, 'summary.json'),
  JSON.stringify(
    { at: new Date().toISOString(), machine, command: process.argv.slice(2), results },
    null,
    2,
  ),
);
process.exitCode = results.every((r) => r.passed) ? 0 : 1;
