/**
 * EventStoreDB adapter overhead: the same appends through openEventStoreDbStore and through the
 * raw client (appendToStream with the expected revision), both over gRPC to the in-process test
 * server (no real EventStoreDB runs here), as single-event appends and as batches of 10.
 *
 * Both paths are warmed up first and then timed in alternating order over several rounds (the
 * median is reported): the raw client's first appends pay for JIT and connection set-up, so a
 * cold raw run followed by a warm adapter run flatters the adapter.
 *
 * An uncontended adapter append is one round trip, as the raw client's: the event id is a content
 * address (eventstoredb.write.ts), so the server's answer needs no read back. What the adapter
 * adds is local: the guard's lookup in the id index, the decision, the content address, and
 * recording the appended ids in the index. The in-process server answers in ~0.1 ms, so that
 * local work shows here far more than against a real server over a network.
 *
 * It runs with the id index in process memory (the store's default) and in a file (as the
 * application keeps it: WAL, `synchronous=NORMAL`, the writes of a burst committed together after
 * 5 ms, src/db/delayed-commit.ts).
 *
 * Each round times both paths back to back, so the per-round ratio compares like with like on a
 * shared machine; the median of those ratios is the headline figure. The same ratio in CPU time
 * (this process's user + system: client, adapter and in-process server together) is reported
 * beside it: it moves far less with other load, so it tells a change from the box's noise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import type { MemoryEvent } from '../src/core/index.js';
import { encodeEvent } from '../src/store/codec.js';
import type { EventLog } from '../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../src/store/eventstoredb/eventstoredb.event-log.js';
import { startEsdbTestServer } from '../test/support/esdb-test-server/index.js';
import { measure, median, report, syntheticLog } from './support.js';

const BATCH = 10;
const ROUNDS = 9;
const WARM_UP = 200;

/** Appends `events` in slices of `size` with the raw client, at the expected revision. */
async function appendRaw(
  client: EventStoreDBClient,
  stream: string,
  events: readonly MemoryEvent[],
  size: number,
): Promise<void> {
  for (let i = 0; i < events.length; i += size) {
    const proposed = events.slice(i, i + size).map((event) => {
      const { id, type, data } = encodeEvent(event);
      return jsonEvent({ id, type, data: { ...data } });
    });
    await client.appendToStream(stream, proposed, {
      expectedRevision: i === 0 ? 'no_stream' : BigInt(i - 1),
    });
  }
}

/** Appends `events` in slices of `size` through the adapter. */
async function appendAdapter(
  log: EventLog,
  events: readonly MemoryEvent[],
  size: number,
): Promise<void> {
  for (let i = 0; i < events.length; i += size) await log.append(events.slice(i, i + size));
}

/**
 * Runs the comparison for each id index in `idIndexes`: `':memory:'` (the store's default) and
 * `'file'`, a fresh file in a temporary folder (WAL, as the application keeps it); any other
 * value is passed as the option.
 */
export async function benchEventStoreDbAppend(
  appends = 500,
  idIndexes: readonly string[] = [':memory:', 'file'],
): Promise<void> {
  for (const idIndex of idIndexes) await benchOne(appends, idIndex);
}

/** The comparison for `appends` single-event appends and `appends` events in batches. */
async function benchOne(appends: number, idIndex: string): Promise<void> {
  const server = await startEsdbTestServer();
  const events = syntheticLog(appends, false);
  const client = EventStoreDBClient.connectionString(server.connectionString);
  const dir = idIndex === 'file' ? mkdtempSync(join(tmpdir(), 'memledger-bench-')) : undefined;
  const store = openEventStoreDbStore(
    { connectionString: server.connectionString },
    { idIndex: dir === undefined ? idIndex : join(dir, 'eventstoredb-index.db') },
  );
  try {
    const warm = syntheticLog(WARM_UP, false);
    await appendRaw(client, 'raw-warm-up', warm, 1);
    await appendAdapter(store.log('warm-up'), warm, 1);

    type Timing = { wall: number; cpu: number };
    const figures = {
      single: { raw: [] as Timing[], adapter: [] as Timing[] },
      batch: { raw: [] as Timing[], adapter: [] as Timing[] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [shape, size] of [
        ['single', 1],
        ['batch', BATCH],
      ] as const) {
        const raw = () => measure(() => appendRaw(client, `raw-${shape}-${round}`, events, size));
        const adapter = () =>
          measure(() => appendAdapter(store.log(`${shape}-${round}`), events, size));
        // Alternate which path runs first, so neither always gets the warmer process.
        if (round % 2 === 0) {
          figures[shape].raw.push(await raw());
          figures[shape].adapter.push(await adapter());
        } else {
          figures[shape].adapter.push(await adapter());
          figures[shape].raw.push(await raw());
        }
      }
    }

    type Shape = 'single' | 'batch';
    const perRound = (shape: Shape, of: keyof Timing) =>
      figures[shape].adapter.map((t, i) => t[of] / figures[shape].raw[i]![of]);
    const ratios = (shape: Shape) =>
      perRound(shape, 'wall')
        .map((r) => r.toFixed(2))
        .join(', ');
    const medianRatio = (shape: Shape, of: keyof Timing = 'wall') => median(perRound(shape, of));
    const medianWall = (timings: readonly Timing[]) => median(timings.map((t) => t.wall));
    const single = {
      raw: medianWall(figures.single.raw),
      adapter: medianWall(figures.single.adapter),
    };
    const batch = {
      raw: medianWall(figures.batch.raw),
      adapter: medianWall(figures.batch.adapter),
    };
    report(dir === undefined ? 'eventstoredb-append' : 'eventstoredb-append-file-index', {
      appends,
      server: 'in-process test server (gRPC on 127.0.0.1)',
      'id index': dir === undefined ? idIndex : 'a SQLite file (WAL, synchronous=NORMAL)',
      rounds: `${ROUNDS} after ${WARM_UP} warm-up appends per path; medians`,
      'single: raw client ms': single.raw,
      'single: adapter ms': single.adapter,
      'single: adapter appends/s': Math.round(appends / (single.adapter / 1000)),
      'single: adapter / raw time ratio (median of rounds)': medianRatio('single'),
      'single: ratio per round': ratios('single'),
      'single: adapter / raw CPU time ratio (median of rounds)': medianRatio('single', 'cpu'),
      [`batch of ${BATCH}: raw client ms`]: batch.raw,
      [`batch of ${BATCH}: adapter ms`]: batch.adapter,
      [`batch of ${BATCH}: adapter / raw time ratio (median of rounds)`]: medianRatio('batch'),
      [`batch of ${BATCH}: ratio per round`]: ratios('batch'),
      [`batch of ${BATCH}: adapter / raw CPU time ratio (median of rounds)`]: medianRatio(
        'batch',
        'cpu',
      ),
      'target ratio (DESIGN)': '<= 1.3',
    });
  } finally {
    await store.close();
    await client.dispose();
    await server.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
