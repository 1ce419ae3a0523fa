/**
 * The fresh process of bench/open-memory.bench.ts, one role per run (first argument):
 *
 * - `open <file> <samples> <seed>`: opens the store and memledger, times the first state page
 *   from process start, reports RSS, then times state pages and streamed states, then the same
 *   pages again in the now warm process; JSON on stdout.
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
  const toContent: number[] = [];
  // CPU time (user + system of this process's threads, GC helpers included) beside wall time:
  // on a shared machine the wall-clock tail also counts time this process waited for a core.
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  /** Times `samples` state pages now and as many as of random seqs (and streamed states). */
  const timePages = async (withStreams: boolean) => {
    const times = { now: [] as number[], asOf: [] as number[] };
    const cpu = { now: [] as number[], asOf: [] as number[] };
    for (let i = 0; i < samples; i++) {
      let cpuStart = cpuMs();
      let start = performance.now();
      await memory.statePage({ limit: 100 });
      times.now.push(performance.now() - start);
      cpu.now.push(cpuMs() - cpuStart);
      cpuStart = cpuMs();
      start = performance.now();
      await memory.statePage({ upToSeq: Math.floor(random() * (head + 1)), limit: 100 });
      times.asOf.push(performance.now() - start);
      cpu.asOf.push(cpuMs() - cpuStart);
      if (!withStreams) continue;
      start = performance.now();
      // Leaving the loop ends the generator: only the head and the first content chunk are read.
      for await (const chunk of memory.streamState({ upToSeq: Math.floor(random() * (head + 1)) }))
        if (chunk.part === 'content') break;
      toContent.push(performance.now() - start);
    }
    return { times, cpu };
  };
  // The first pass is a fresh process's first pages (JIT and heap still warming up); the
  // repeat times the same pages again in the now warm process.
  const fresh = await timePages(true);
  const rssAfterLoop = process.memoryUsage().rss;
  const repeat = await timePages(false);
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
      nowP50: p(fresh.times.now, 50),
      nowP99: p(fresh.times.now, 99),
      asOfP50: p(fresh.times.asOf, 50),
      asOfP99: p(fresh.times.asOf, 99),
      nowCpuP50: p(fresh.cpu.now, 50),
      nowCpuP99: p(fresh.cpu.now, 99),
      asOfCpuP50: p(fresh.cpu.asOf, 50),
      asOfCpuP99: p(fresh.cpu.asOf, 99),
      repeatNowP50: p(repeat.times.now, 50),
      repeatNowP99: p(repeat.times.now, 99),
      repeatAsOfP50: p(repeat.times.asOf, 50),
      repeatAsOfP99: p(repeat.times.asOf, 99),
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
