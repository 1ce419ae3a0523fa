/**
 * How a projection's layouts stand when its file opens (src/projections/layout-upgrade.ts), on
 * real SQLite files: a layout no code reads any longer is rebuilt before it answers and the log
 * says so; a half-built layout of a version the code does not write is dropped; and a build
 * beside the serving layout works the same where the projections live in a file of their own
 * over a store without inline hooks (EventStoreDB, in-memory), a writer's own appends included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isMemoryError } from '../../src/core/index.js';
import { openProjectionRuntime, type ProjectionRuntime } from '../../src/projections/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import type { Projection } from '../../src/store/projection.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { message } from '../support/events.js';
import { building, PROBE, probeLayout1, probeLayout2, type ProbeHandler } from './upgrade-probe.js';

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-layout-ways-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Layout 2 without a reader for layout 1. */
const { previous: _previous, ...layout2Alone } = probeLayout2;

interface Opened {
  readonly runtime: ProjectionRuntime;
  readonly said: string[];
  close(): Promise<void>;
}

/** The SQLite store at `path` and its runtime, with `projection` registered. */
function openSqlite(path: string, projection: Projection): Opened & { store: MemoryStore } {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const said: string[] = [];
  const runtime = openProjectionRuntime(
    store.embedded!.database,
    path,
    store,
    store.embedded,
    (text) => said.push(text),
  );
  runtime.register(projection);
  return {
    store,
    runtime,
    said,
    close: async () => {
      runtime.close();
      await store.close();
    },
  };
}

const totals = async (runtime: ProjectionRuntime, memoryId: string) => {
  await runtime.advance(memoryId, { needed: [PROBE] });
  return runtime.handler<ProbeHandler>(PROBE)!.totals(memoryId);
};

const probeTables = (path: string): string[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE name LIKE 'probe%' ORDER BY name")
      .pluck()
      .all();
  } finally {
    db.close();
  }
};

/** Waits, querying, until no layout is being built (bounded). */
async function untilSwitched(runtime: ProjectionRuntime, memoryId: string): Promise<void> {
  for (let i = 0; i < 10_000 && building(runtime).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await totals(runtime, memoryId);
  }
  expect(building(runtime)).toEqual([]);
}

describe('layouts of a projection when its file opens', () => {
  it('rebuilds a layout no code reads any longer before it answers, and says so in the log', async () => {
    const path = join(dir, `alone-${n++}.db`);
    let opened = openSqlite(path, probeLayout1);
    await opened.store.log('m').append([message('one'), message('two')]);
    await totals(opened.runtime, 'm');
    await opened.close();

    opened = openSqlite(path, layout2Alone);
    expect(building(opened.runtime)).toEqual([]);
    expect(opened.said).toEqual([
      `memledger: ${PROBE} in ${path}: no code reads its layout 1 any longer, so layout 2 is rebuilt from the log before it answers (queries wait for it).`,
    ]);
    expect(probeTables(path)).toEqual(['probe_by_kind', 'probe_by_kind_seq']);
    expect(await totals(opened.runtime, 'm')).toEqual({
      layout: 2,
      events: 2,
      chars: 6,
      checkpoint: 1,
    });
    await opened.close();
  });

  it('refuses a previous layout of another projection or of a version not below, writing nothing', async () => {
    const path = join(dir, `refused-${n++}.db`);
    const store = openSqliteStore({ path, synchronous: 'NORMAL' });
    const runtime = openProjectionRuntime(store.embedded!.database, path, store, store.embedded);
    const refused = [
      { ...probeLayout2, previous: { ...probeLayout1, name: 'other' } },
      { ...probeLayout2, previous: { ...probeLayout1, version: 2 } },
    ];
    for (const projection of refused) {
      let thrown: unknown;
      try {
        runtime.register(projection);
      } catch (error) {
        thrown = error;
      }
      expect(isMemoryError(thrown, 'VALIDATION_FAILED')).toBe(true);
      expect((thrown as Error).message).toMatch(
        /^Projection upgrade-probe version 2: its previous must be projection upgrade-probe of a lower version, not (other version 1|upgrade-probe version 2)\.$/,
      );
    }
    expect(probeTables(path)).toEqual([]);
    expect(building(runtime)).toEqual([]);
    expect(runtime.handler(PROBE)).toBeUndefined();
    runtime.close();
    await store.close();
  });

  it('drops a half-built layout of a version the code does not write, and serves its own', async () => {
    const path = join(dir, `downgrade-${n++}.db`);
    let opened = openSqlite(path, probeLayout1);
    await opened.store.log('m').append([message('one')]);
    await totals(opened.runtime, 'm');
    await opened.close();
    // Layout 2 starts building beside layout 1 and is stopped before it switched.
    opened = openSqlite(path, probeLayout2);
    opened.runtime.close();
    await opened.store.close();
    expect(probeTables(path)).toEqual([
      'probe_by_kind__v2',
      'probe_by_kind_seq__v2',
      'probe_totals',
    ]);

    opened = openSqlite(path, probeLayout1);
    expect(building(opened.runtime)).toEqual([]);
    expect(probeTables(path)).toEqual(['probe_totals']);
    expect(await totals(opened.runtime, 'm')).toMatchObject({ layout: 1, events: 1 });
    await opened.close();
  });

  it('switches once when two connections build the same layout of one file, and the other serves it without its old tables', async () => {
    const path = join(dir, `two-${n++}.db`);
    const first = openSqlite(path, probeLayout1);
    for (let at = 0; at < 12_000; at += 4000)
      await first.store
        .log('m')
        .append(Array.from({ length: 4000 }, (_, i) => message(`m ${at + i}`)));
    await totals(first.runtime, 'm');
    await first.close();

    const a = openSqlite(path, probeLayout2);
    const b = openSqlite(path, probeLayout2);
    await untilSwitched(a.runtime, 'm');
    // b's own build may stand anywhere: its next query serves what a switched to.
    expect(await totals(b.runtime, 'm')).toEqual(await totals(a.runtime, 'm'));
    expect(await totals(b.runtime, 'm')).toMatchObject({ layout: 2, events: 12_000 });
    await b.store.log('m').append([message('from b')]);
    expect(await totals(a.runtime, 'm')).toMatchObject({ layout: 2, events: 12_001 });
    await untilSwitched(b.runtime, 'm');
    const said = [...a.said, ...b.said];
    expect(said.filter((text) => text.includes('stopped'))).toEqual([]);
    expect(said.filter((text) => text.includes(': caught up and switched to;'))).toHaveLength(1);
    await a.close();
    await b.close();
    expect(probeTables(path)).toEqual(['probe_by_kind__v2', 'probe_by_kind_seq__v2']);
  });

  it('builds beside the serving layout in a file of its own over a store without inline hooks, with a writer applying its own appends', async () => {
    const path = join(dir, `own-${n++}.db`);
    const store = openInMemoryStore();
    const ownFile = (projection: Projection) => {
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      const runtime = openProjectionRuntime(db, path, store);
      runtime.register(projection);
      return { runtime, close: () => (runtime.close(), db.close()) };
    };
    const log = store.log('m');
    const first = ownFile(probeLayout1);
    for (let at = 0; at < 12_000; at += 4000)
      await log.append(Array.from({ length: 4000 }, (_, i) => message(`m ${at + i}`)));
    await totals(first.runtime, 'm');
    first.close();

    const second = ownFile(probeLayout2);
    expect(building(second.runtime)).toEqual([
      expect.objectContaining({ projection: PROBE, from: 1, to: 2 }),
    ]);
    expect(await totals(second.runtime, 'm')).toMatchObject({ layout: 1, events: 12_000 });
    // A writer's own append, applied at once to the serving layout while the build runs.
    const written = await log.append([message('while building')]);
    second.runtime.applyAppended('m', written);
    expect(second.runtime.handler<ProbeHandler>(PROBE)!.totals('m')).toMatchObject({
      layout: 1,
      events: 12_001,
    });
    await untilSwitched(second.runtime, 'm');
    const written2 = await log.append([message('after')]);
    second.runtime.applyAppended('m', written2);
    expect(second.runtime.handler<ProbeHandler>(PROBE)!.totals('m')).toMatchObject({
      layout: 2,
      events: 12_002,
      checkpoint: 12_001,
    });
    second.close();
    expect(probeTables(path)).toEqual(['probe_by_kind__v2', 'probe_by_kind_seq__v2']);
  });
});
