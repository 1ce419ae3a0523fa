/**
 * SQLite append cost with the read models, against the raw driver inserting the same rows into
 * the same log layout (WAL, same `synchronous`, one transaction per append), measured in the
 * same run. The adapter runs the append guard, writes the log and applies the read models in the
 * append's transaction (state, totals, recall uses, item index); the FTS5 search index follows in
 * batches before the next search. Both are timed, apart: the appends (what the target
 * names: the read models in the append's transaction), then the search catch-up, and their sum is
 * reported against raw as well, so the search index's cost is never hidden. A last row times the
 * same appends with content sealed (the application's default) against the unsealed store.
 *
 * Each side runs `rounds` times, the sides interleaved, on fresh files; times are medians. The
 * speed against raw is the median of each round's ratio (raw and store run back to back in a
 * round), as the EventStoreDB bench reports it: a fsync that slows for a while then weighs on
 * both sides of the rounds it falls in, not on one side's median. CPU time (this process's user
 * + system) is reported beside wall time: on a shared machine it moves far less with other load,
 * though it leaves out time waiting on fsync.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { masterKeyFromBytes, openSqliteKeyStore } from '../src/keys/index.js';
import { openMemledger } from '../src/memory/index.js';
import { EVENT_TYPES, EVENT_VERSIONS } from '../src/core/index.js';
import { idKey } from '../src/db/encodings.js';
import { EVENT_TYPE_CODES } from '../src/store/sqlite/sqlite.codec.js';
import { sealedStore } from '../src/store/sealed/sealed-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { diskMix, type TargetSpread } from './disk.bench.js';
import { measure, median, report } from './support.js';

/** Raw better-sqlite3: the log rows only, into a file laid out by the store. */
async function rawAppends(
  path: string,
  events: ReturnType<typeof diskMix>,
  batch: number,
  sync: string,
) {
  await openSqliteStore({ path }).close();
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${sync}`);
  raw.prepare("INSERT INTO memories (memory_id) VALUES ('default')").run();
  const key = raw.prepare("SELECT key FROM memories WHERE memory_id = 'default'").pluck().get();
  const insert = raw.prepare(
    'INSERT INTO event_log (memory, seq, id, type, version, payload) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const tx = raw.transaction((slice: typeof events, from: number) => {
    slice.forEach((event, i) => {
      // The row as a plain driver would write it: JSON.stringify, no canonical encoding.
      const { seq: _seq, id, kind, ...body } = event;
      const type = EVENT_TYPE_CODES[EVENT_TYPES[kind]];
      insert.run(key, from + i, idKey(id), type, EVENT_VERSIONS[kind], JSON.stringify(body));
    });
  });
  return {
    run: () => {
      for (let i = 0; i < events.length; i += batch) tx.immediate(events.slice(i, i + batch), i);
    },
    close: () => raw.close(),
  };
}

export async function benchSqliteAppend(
  appends = 5000,
  batch = 1,
  synchronous: 'FULL' | 'NORMAL' = 'NORMAL',
  rounds = 3,
  spread: TargetSpread = 'recent',
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-'));
  const events = diskMix(appends * batch, spread);
  try {
    const timeRaw = async (path: string) => {
      const raw = await rawAppends(path, events, batch, synchronous);
      const took = await measure(() => raw.run());
      raw.close();
      return took;
    };
    const timeAdapter = async (path: string, withReadModels: boolean, sealed = false) => {
      const plain = openSqliteStore({ path, synchronous });
      const store = sealed
        ? sealedStore(
            plain,
            openSqliteKeyStore(`${path}.keys`, {
              masterKey: masterKeyFromBytes(randomBytes(32)),
              create: true,
            }),
          )
        : plain;
      const memledger = withReadModels ? openMemledger({ store }) : undefined;
      const log = store.log();
      const appended = await measure(async () => {
        for (let i = 0; i < events.length; i += batch) await log.append(events.slice(i, i + batch));
      });
      // Search indexes after the appends, in batches: timed on its own and added to the total.
      const searched = await measure(async () => {
        if (memledger) await (await memledger.memory()).search('indexed');
      });
      const took = {
        wall: appended.wall + searched.wall,
        cpu: appended.cpu + searched.cpu,
        appendsWall: appended.wall,
        appendsCpu: appended.cpu,
      };
      if (memledger) {
        const memory = await memledger.memory();
        if (memory.readModelSeq !== events.length - 1)
          throw new Error(`read models at ${memory.readModelSeq}, not in the append transactions`);
        await memledger.close();
      } else await store.close();
      return took;
    };
    const runs = { raw: [], logOnly: [], adapter: [], sealed: [] } as Record<
      'raw' | 'logOnly' | 'adapter' | 'sealed',
      { wall: number; cpu: number; appendsWall?: number; appendsCpu?: number }[]
    >;
    for (let round = 0; round < rounds; round++) {
      runs.raw.push(await timeRaw(join(dir, `raw-${round}.db`)));
      runs.logOnly.push(await timeAdapter(join(dir, `log-only-${round}.db`), false));
      runs.adapter.push(await timeAdapter(join(dir, `adapter-${round}.db`), true));
      runs.sealed.push(await timeAdapter(join(dir, `sealed-${round}.db`), true, true));
    }
    const wall = (side: keyof typeof runs) => median(runs[side].map((r) => r.wall));
    const cpu = (side: keyof typeof runs) => median(runs[side].map((r) => r.cpu));
    const rawMs = wall('raw');
    const adapterMs = wall('adapter');
    const inTransactionMs = median(runs.adapter.map((r) => r.appendsWall!));
    const perRound = (time: (adapter: (typeof runs.adapter)[number]) => number) =>
      runs.raw.map((r, i) => r.wall / time(runs.adapter[i]!));
    report(
      `sqlite-append-batch-${batch}-${synchronous}${spread === 'recent' ? '' : '-far-targets'}`,
      {
        appends,
        'recall targets': spread === 'recent' ? 'the three latest items' : 'drawn from all visible',
        'events per append': batch,
        synchronous,
        'rounds (medians below)': rounds,
        'raw better-sqlite3, log rows only, ms (baseline)': rawMs,
        'store, log + guard, no read models, ms': wall('logOnly'),
        'store + read models in the transaction (the appends), ms': inTransactionMs,
        'speed vs raw, appends with read models in the transaction (median of rounds)': median(
          perRound((a) => a.appendsWall!),
        ),
        'speed vs raw, appends only, each round': perRound((a) => a.appendsWall!)
          .map((ratio) => ratio.toFixed(2))
          .join(' / '),
        'speed vs raw, ratio of the median times': rawMs / inTransactionMs,
        target: batch === 1 ? '>= 0.8x raw' : '>= 0.5x raw',
        'search catch-up after the appends, ms': median(
          runs.adapter.map((r) => r.wall - r.appendsWall!),
        ),
        'appends + search catch-up, ms': adapterMs,
        'events/s with read models and search': Math.round((appends * batch) / (adapterMs / 1000)),
        'speed vs raw, appends + search catch-up (median of rounds)': median(
          perRound((a) => a.wall),
        ),
        'speed vs raw, appends + search, each round': perRound((a) => a.wall)
          .map((ratio) => ratio.toFixed(2))
          .join(' / '),
        'CPU ms raw / log only / appends with read models / + search': [
          cpu('raw'),
          cpu('logOnly'),
          median(runs.adapter.map((r) => r.appendsCpu!)),
          cpu('adapter'),
        ]
          .map((ms) => ms.toFixed(0))
          .join(' / '),
        'speed vs raw in CPU time, appends + search': cpu('raw') / cpu('adapter'),
        // The application's default: content sealed with per-item keys (a key-store commit, with
        // synchronous=FULL, before each append that writes content).
        'store + read models + sealed content (key store), ms': wall('sealed'),
        'sealed vs unsealed (adapter ms / sealed ms)': adapterMs / wall('sealed'),
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
