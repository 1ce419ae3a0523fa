/**
 * The fresh process of bench/open-memory.bench.ts, one role per run (first argument):
 *
 * - `open <file> <samples> <seed>`: opens the store and memledger, times the first state page
 *   from process start, reports RSS, then times state pages and streamed states; JSON on stdout.
 * - `raw <file> <samples> <seed>`: the baseline: raw better-sqlite3 opens the file and reads the
 *   last 100 events of the log, then times that read and the 100 events before random seqs.
 * - `writer <file> <with-read-models>`: appends one event at a time until killed (the parent
 *   sends SIGKILL); prints `writing` once the first append committed. With `false` it appends
 *   through the bare store, so the read models fall behind the log.
 *
 * Modules are imported dynamically after the clock starts, so their load time is reported apart.
 */
import { performance } from 'node:perf_hooks';

/** Milliseconds since the parent spawned this process (its Date.now() in the environment). */
const sinceSpawn = () => Date.now() - Number(process.env.MEMLEDGER_BENCH_SPAWNED_AT ?? Date.now());

/** Most a writer runs if its parent never kills it (the parent died first). */
const WRITER_LIFETIME_MS = 120_000;

const [role, file, ...rest] = process.argv.slice(2);
if (!file) throw new Error('usage: open-memory.child.ts open|raw|writer <file> [...]');

if (role === 'open') await openMemory(file, Number(rest[0] ?? 200), Number(rest[1] ?? 7));
else if (role === 'raw') await openRaw(file, Number(rest[0] ?? 200), Number(rest[1] ?? 7));
else if (role === 'writer') await write(file, rest[0] !== 'false');
else throw new Error(`Unknown role ${role}.`);

async function openMemory(path: string, samples: number, seed: number): Promise<void> {
  const importStart = performance.now();
  const { openMemledger } = await import('../src/memory/index.js');
  const { openSqliteStore } = await import('../src/store/sqlite/sqlite.event-log.js');
  const { percentile, seededRandom } = await import('./support.js');
  const openStart = performance.now();
  const store = openSqliteStore({ path });
  const memledger = openMemledger({ store });
  const memory = await memledger.memory();
  const checkpointBefore = memory.checkpoint;
  const first = await memory.statePage({ limit: 100 });
  const firstPageAt = performance.now();
  const fromSpawnMs = sinceSpawn();
  const rssAfterFirstPage = process.memoryUsage().rss;
  const head = first.lastSeq ?? -1;

  const random = seededRandom(seed);
  const now: number[] = [];
  const asOf: number[] = [];
  const toContent: number[] = [];
  // CPU time (user + system, this process's threads) beside wall time: on a shared machine the
  // wall-clock tail also counts time this process waited for a core.
  let pageCpuMicros = 0;
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  for (let i = 0; i < samples; i++) {
    let cpuStart = cpu();
    let start = performance.now();
    await memory.statePage({ limit: 100 });
    now.push(performance.now() - start);
    pageCpuMicros += cpu() - cpuStart;
    cpuStart = cpu();
    start = performance.now();
    await memory.statePage({ upToSeq: Math.floor(random() * (head + 1)), limit: 100 });
    asOf.push(performance.now() - start);
    pageCpuMicros += cpu() - cpuStart;
    start = performance.now();
    // Leaving the loop ends the generator: only the head and the first content chunk are read.
    for await (const chunk of memory.streamState({ upToSeq: Math.floor(random() * (head + 1)) }))
      if (chunk.part === 'content') break;
    toContent.push(performance.now() - start);
  }
  const rssAfterLoop = process.memoryUsage().rss;
  await memledger.close();
  const p = (xs: number[], q: number) => (xs.length > 0 ? percentile(xs, q) : NaN);
  console.log(
    JSON.stringify({
      importMs: openStart - importStart,
      fromProcessStartMs: firstPageAt,
      fromOpenCallMs: firstPageAt - openStart,
      fromSpawnMs,
      rssAfterFirstPage,
      rssAfterLoop,
      checkpointBefore,
      head,
      visibleOnFirstPage: first.visibleMessages.length + first.visibleDocuments.length,
      totals: first.totals,
      samples,
      nowP50: p(now, 50),
      nowP99: p(now, 99),
      asOfP50: p(asOf, 50),
      asOfP99: p(asOf, 99),
      pageCpuMs: samples > 0 ? pageCpuMicros / 1000 / (2 * samples) : NaN,
      streamToContentP50: p(toContent, 50),
      streamToContentP99: p(toContent, 99),
    }),
  );
}

async function openRaw(path: string, samples: number, seed: number): Promise<void> {
  const importStart = performance.now();
  const { default: Database } = await import('better-sqlite3');
  const { percentile, seededRandom } = await import('./support.js');
  const openStart = performance.now();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const lastRows = db.prepare<[string, number], { seq: number; payload: string }>(
    `SELECT e.seq, e.id, e.type, e.version, e.payload FROM event_log e
      WHERE e.memory = (SELECT key FROM memories WHERE memory_id = ?) AND e.seq <= ?
      ORDER BY e.seq DESC LIMIT 100`,
  );
  // Decoding the payloads is part of a page's work in memledger too.
  const read = (upToSeq: number) =>
    lastRows
      .all('default', upToSeq)
      .map((row) => ({ seq: row.seq, ...(JSON.parse(row.payload) as object) }));
  const first = read(Number.MAX_SAFE_INTEGER);
  const firstPageAt = performance.now();
  const fromSpawnMs = sinceSpawn();
  const rss = process.memoryUsage().rss;
  const head = first[0]?.seq ?? -1;
  const random = seededRandom(seed);
  const now: number[] = [];
  const asOf: number[] = [];
  for (let i = 0; i < samples; i++) {
    let start = performance.now();
    read(Number.MAX_SAFE_INTEGER);
    now.push(performance.now() - start);
    start = performance.now();
    read(Math.floor(random() * (head + 1)));
    asOf.push(performance.now() - start);
  }
  const rssAfterLoop = process.memoryUsage().rss;
  db.close();
  const p = (xs: number[], q: number) => (xs.length > 0 ? percentile(xs, q) : NaN);
  console.log(
    JSON.stringify({
      importMs: openStart - importStart,
      fromProcessStartMs: firstPageAt,
      fromOpenCallMs: firstPageAt - openStart,
      fromSpawnMs,
      rss,
      rssAfterLoop,
      rows: first.length,
      head,
      nowP50: p(now, 50),
      nowP99: p(now, 99),
      asOfP50: p(asOf, 50),
      asOfP99: p(asOf, 99),
    }),
  );
}

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
