/**
 * `GET /metrics` while a projection's new layout is built beside the serving one: the events it
 * has yet to apply, labelled with the projection and the layout, go down as it builds, to zero
 * once it switched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createMessage } from '../../src/core/index.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { openProjectionRuntime } from '../../src/projections/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import {
  building,
  PROBE,
  probeLayout1,
  probeLayout2,
  type ProbeHandler,
} from '../projections/upgrade-probe.js';
import { parsePrometheusText } from './prometheus-text.js';

/** Enough for a build of a dozen chunks. */
const EVENTS = 60_000;
const SERIES = 'memledger_projection_layout_behind';

let dir: string;
let path: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-layout-metrics-'));
  path = join(dir, 'memory.db');
  // A file whose probe stands at layout 1 over the whole log.
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const runtime = openProjectionRuntime(store.embedded!.database, path, store, store.embedded);
  runtime.register(probeLayout1);
  const log = store.log('probe');
  for (let at = 0; at < EVENTS; at += 1000)
    await log.append(
      Array.from({ length: 1000 }, (_, i) =>
        createMessage({ speaker: 'user', content: `m ${at + i}` }),
      ),
    );
  runtime.close();
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GET /metrics during a layout build', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      logger: false,
      host: '127.0.0.1',
      port: 0,
      store: { kind: 'sqlite', path, pollMs: 20 },
    });
  });
  afterAll(async () => server.close());

  /** The series' value for the probe's layout 2 (undefined: not reported). */
  const behind = async (): Promise<number | undefined> => {
    const text = (await request(server.url).get('/metrics').expect(200)).text;
    return parsePrometheusText(text).find(
      ({ name, labels }) =>
        name === SERIES &&
        labels.memledger_projection === PROBE &&
        labels.memledger_projection_layout === '2',
    )?.value;
  };

  it('reports the events the new layout has yet to apply, going down to zero as it switches', async () => {
    const { projections } = server.memledger;
    expect(await behind()).toBeUndefined();
    projections.register(probeLayout2);
    const seen: number[] = [];
    for (let scrapes = 0; scrapes < 10_000 && building(projections).length > 0; scrapes++) {
      const value = await behind();
      if (value !== undefined) seen.push(value);
    }
    expect(building(projections)).toEqual([]);
    expect(await behind()).toBe(0);
    // It moved: first seen with most of the log to apply, then less and less.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen.at(-1)).toBeLessThan(seen[0]!);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(projections.handler<ProbeHandler>(PROBE)!.totals('probe')).toMatchObject({
      layout: 2,
      events: EVENTS,
    });
  });
});
