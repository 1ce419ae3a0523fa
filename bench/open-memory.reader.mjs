/**
 * The fresh reading process of bench/open-memory.bench.ts, one role per run. Plain JavaScript
 * run by plain `node` (no TypeScript loader), importing memledger by its package name: the
 * compiled package (dist/), as an application or a library user loads it.
 *
 * - `open <file> <samples>`: opens the store and memledger, times the first state page from
 *   process start, reports RSS, then times state pages and streamed states, then the same kind
 *   of pages again in the now warm process.
 * - `open-unbundled <file> <samples>`: the same from dist/'s modules one by one (what tsc
 *   compiled), not the bundle the package name resolves to: the same code, a longer import.
 * - `raw <file> <samples>`: the baseline: raw better-sqlite3 opens the file and reads the last
 *   100 events of the log, then times that read and the 100 events before random seqs.
 *
 * The random positions (fractions of the head) come from the parent in
 * MEMLEDGER_BENCH_POSITIONS (3 x samples of them), so both roles read as of the same seqs. It prints one line of JSON with
 * every sample; the parent takes the percentiles. Modules are imported after the clock starts,
 * so their load time is reported apart. The `open` role loads better-sqlite3 among its imports and
 * times that apart too (`driverMs`): memledger loads it at its first open, where 0.2.0 loaded it
 * when imported, so the open call counts the same work in both and the driver's load is still seen.
 *
 * The open call also reports the minor page faults it took (`openCallPageFaults`): memory the
 * process touches for the first time. How many depends on what ran before it (a longer import
 * leaves more of the young generation already touched), and each costs microseconds here.
 */
import { performance } from 'node:perf_hooks';

/** Milliseconds since the parent spawned this process (its Date.now() in the environment). */
const sinceSpawn = () => Date.now() - Number(process.env.MEMLEDGER_BENCH_SPAWNED_AT ?? Date.now());
/** @type {number[]} */
const positions = JSON.parse(process.env.MEMLEDGER_BENCH_POSITIONS ?? '[]');
/** The seq at the `i`th position, for a log whose last seq is `head`. */
const seqAt = (i, head) => Math.floor((positions[i % positions.length] ?? 0) * (head + 1));
/** CPU time (user + system, every thread of this process) in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Minor page faults of this process so far (pages it touched for the first time). */
const pageFaults = () => process.resourceUsage().minorPageFault;

/** When a reader's first read was done, from its clock's marks (ms since process start). */
const processFigures = (importStart, openStart, firstPageAt, fromSpawnMs) => ({
  importMs: openStart - importStart,
  fromProcessStartMs: firstPageAt,
  fromOpenCallMs: firstPageAt - openStart,
  fromSpawnMs,
});

const [role, file, samplesArg] = process.argv.slice(2);
const samples = Number(samplesArg ?? 200);
if (!file) throw new Error('usage: open-memory.reader.mjs open|open-unbundled|raw <file> [samples]');
if (role === 'open') await openMemory(file, 'memledger', 'memledger/sqlite');
else if (role === 'open-unbundled') await openMemory(file, '../dist/index.js', '../dist/sqlite.js');
else if (role === 'raw') await openRaw(file);
else throw new Error(`Unknown role ${role}.`);

async function openMemory(path, main, sqlite) {
  const importStart = performance.now();
  const { openMemledger } = await import(main);
  const { openSqliteStore } = await import(sqlite);
  const driverStart = performance.now();
  await import('better-sqlite3');
  const faultsBefore = pageFaults();
  const openStart = performance.now();
  const store = openSqliteStore({ path });
  const memledger = openMemledger({ store });
  const memory = await memledger.memory();
  const checkpointBefore = memory.readModelSeq;
  const first = await memory.statePage({ limit: 100 });
  const firstPageAt = performance.now();
  const openCallPageFaults = pageFaults() - faultsBefore;
  const fromSpawnMs = sinceSpawn();
  const rssAfterFirstPage = process.memoryUsage().rss;
  const head = first.lastSeq ?? -1;

  /**
   * Times `samples` state pages now and as many as of random seqs (and streamed states). The
   * fresh pass reads as of the same seqs as the raw child (positions 0 to samples - 1); its
   * streams and the repeat take the positions after those.
   */
  const timePages = async (withStreams, from) => {
    const t = { now: [], asOf: [], cpuNow: [], cpuAsOf: [], toContent: [] };
    for (let i = 0; i < samples; i++) {
      let cpuStart = cpuMs();
      let start = performance.now();
      await memory.statePage({ limit: 100 });
      t.now.push(performance.now() - start);
      t.cpuNow.push(cpuMs() - cpuStart);
      const upToSeq = seqAt(from + i, head);
      cpuStart = cpuMs();
      start = performance.now();
      await memory.statePage({ upToSeq, limit: 100 });
      t.asOf.push(performance.now() - start);
      t.cpuAsOf.push(cpuMs() - cpuStart);
      if (!withStreams) continue;
      const streamTo = seqAt(samples + i, head);
      start = performance.now();
      // Leaving the loop ends the generator: only the head and the first content chunk are read.
      for await (const chunk of memory.streamState({ upToSeq: streamTo }))
        if (chunk.part === 'content') break;
      t.toContent.push(performance.now() - start);
    }
    return t;
  };
  // The first pass is a fresh process's first pages (JIT and heap still warming up); the
  // repeat times the same kind of pages again in the now warm process.
  const fresh = await timePages(true, 0);
  const rssAfterLoop = process.memoryUsage().rss;
  const repeat = await timePages(false, 2 * samples);
  await memledger.close();
  console.log(
    JSON.stringify({
      ...processFigures(importStart, openStart, firstPageAt, fromSpawnMs),
      driverMs: openStart - driverStart,
      openCallPageFaults,
      rssAfterFirstPage,
      rssAfterLoop,
      checkpointBefore,
      head,
      visibleOnFirstPage: first.visibleMessages.length + first.visibleDocuments.length,
      fresh,
      repeat,
    }),
  );
}

async function openRaw(path) {
  const importStart = performance.now();
  const { default: Database } = await import('better-sqlite3');
  const openStart = performance.now();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const lastRows = db.prepare(
    `SELECT e.seq, e.id, e.type, e.version, e.payload FROM event_log e
      WHERE e.memory = (SELECT key FROM memories WHERE memory_id = ?) AND e.seq <= ?
      ORDER BY e.seq DESC LIMIT 100`,
  );
  // Decoding the payloads is part of a page's work in memledger too.
  const read = (upToSeq) =>
    lastRows.all('default', upToSeq).map((row) => ({ seq: row.seq, ...JSON.parse(row.payload) }));
  const first = read(Number.MAX_SAFE_INTEGER);
  const firstPageAt = performance.now();
  const fromSpawnMs = sinceSpawn();
  const rss = process.memoryUsage().rss;
  const head = first[0]?.seq ?? -1;
  const now = [];
  const asOf = [];
  for (let i = 0; i < samples; i++) {
    let start = performance.now();
    read(Number.MAX_SAFE_INTEGER);
    now.push(performance.now() - start);
    const upToSeq = seqAt(i, head);
    start = performance.now();
    read(upToSeq);
    asOf.push(performance.now() - start);
  }
  const rssAfterLoop = process.memoryUsage().rss;
  db.close();
  console.log(
    JSON.stringify({
      ...processFigures(importStart, openStart, firstPageAt, fromSpawnMs),
      rss,
      rssAfterLoop,
      rows: first.length,
      head,
      now,
      asOf,
    }),
  );
}
