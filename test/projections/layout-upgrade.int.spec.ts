/**
 * A layout upgrade of a 1,000,000-event memory, on a real SQLite file, while a client keeps
 * querying and appending: every query is answered from the old layout while the new one builds
 * beside it (and completes while the build is still in progress), a close half way resumes the
 * build on reopen without serving the half-built layout, and once caught up the new layout
 * serves and the old tables are gone. The log is written by the bare store (its first event) and
 * filled with rows of the same shape by one multi-row insert, so the test spends its time on the
 * upgrade rather than on writing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createMessage } from '../../src/core/index.js';
import { openProjectionRuntime } from '../../src/projections/index.js';
import type { ProjectionRuntime } from '../../src/projections/index.js';
import type { Projection } from '../../src/store/projection.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import {
  building,
  PROBE,
  probeLayout1,
  probeLayout2,
  type ProbeHandler,
  type ProbeTotals,
} from './upgrade-probe.js';

const EVENTS = 1_000_000;
const MEMORY = 'big';
/** The whole upgrade: writing, the first layout's blocking build, then the second's beside it. */
const TIMEOUT_MS = 600_000;
/** Most queries a client makes while waiting for a build (it fails rather than spins). */
const MOST_QUERIES = 100_000;

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-layout-upgrade-'));
  path = join(dir, 'memory.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the memory holds, as the client knows it. */
interface Expected {
  events: number;
  chars: number;
}

/**
 * A log of `n` messages (`m 0`, `m 1`, ...): the first appended by the bare store, the rest
 * inserted in its format (UUIDv7-shaped ids, canonical payloads) by one statement.
 */
async function writeLog(n: number): Promise<Expected> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const start = () => new Date(Date.UTC(2026, 0, 1));
  await store
    .log(MEMORY)
    .append([createMessage({ speaker: 'user', content: 'm 0' }, { now: start })]);
  await store.close();
  const db = new Database(path);
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO event_log (memory, seq, id, type, version, payload)
     SELECT 1, i, unhex(printf('%012X7000', 1767225600000 + i) || '8' || printf('%015X', i)), 1, 3,
       json_object('actor', NULL, 'content', 'm ' || i, 'recordedBy', NULL, 'sessionId', NULL,
         'source', 'unknown', 'speaker', 'user',
         'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i, 'unixepoch'))
     FROM n`,
  ).run(n - 1);
  db.close();
  let chars = 0;
  for (let i = 0; i < n; i++) chars += 2 + String(i).length;
  return { events: n, chars };
}

interface Opened {
  readonly runtime: ProjectionRuntime;
  readonly said: string[];
  append(content: string): Promise<void>;
  close(): Promise<void>;
}

/** The store and its projection runtime, with `projection` registered, as memledger opens them. */
function open(projection: Projection): Opened {
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
    runtime,
    said,
    append: async (content) => {
      await store.log(MEMORY).append([createMessage({ speaker: 'user', content })]);
    },
    close: async () => {
      runtime.close();
      await store.close();
    },
  };
}

/** One query as the client asks it: the probe brought to the head, then asked. */
async function ask(runtime: ProjectionRuntime): Promise<ProbeTotals> {
  await runtime.advance(MEMORY, { needed: [PROBE] });
  return runtime.handler<ProbeHandler>(PROBE)!.totals(MEMORY);
}

/** A query the client made while a build ran, and the build's progress when it was answered. */
interface Sample {
  readonly answer: ProbeTotals;
  readonly expected: Expected;
  /** The build's progress right after the answer (undefined: no build any longer). */
  readonly applied: number | undefined;
  readonly total: number | undefined;
}

/**
 * Queries (and every tenth time appends) until the build is gone or `enough` says so; each
 * query waits for the next turn of the event loop first, as a request arriving would.
 */
async function queryWhileBuilding(
  opened: Opened,
  expected: Expected,
  enough: (applied: number) => boolean = () => false,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < MOST_QUERIES; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    const build = building(opened.runtime)[0];
    if (build === undefined || enough(build.applied)) return samples;
    if (i % 10 === 9) {
      const content = `live ${i}`;
      await opened.append(content);
      expected.events++;
      expected.chars += content.length;
    }
    const answer = await ask(opened.runtime);
    const after = building(opened.runtime)[0];
    samples.push({
      answer,
      expected: { ...expected },
      applied: after?.applied,
      total: after?.total,
    });
  }
  throw new Error(`No switch within ${MOST_QUERIES} queries: ${opened.said.join(' ')}`);
}

const tableNames = (): string[] => {
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

const builtSoFar = (): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], number>('SELECT max(last_seq) FROM probe_by_kind__v2').pluck().get()!;
  } finally {
    db.close();
  }
};

/**
 * The samples taken while the build was in progress came from layout 1, correct. A query the
 * switch overtook (it waits for the probe's catch-up, during which the build may finish: no build
 * was left after it) may have been answered by either layout.
 */
function expectAnsweredFromOldLayout(samples: readonly Sample[]): void {
  for (const { answer, expected, applied } of samples) {
    expect(applied === undefined ? [1, 2] : [1]).toContain(answer.layout);
    expect(answer).toEqual({
      layout: answer.layout,
      events: expected.events,
      chars: expected.chars,
      checkpoint: expected.events - 1,
    });
  }
}

describe('a layout upgrade of a 1,000,000-event memory', () => {
  it(
    'answers every query from the old layout while the new one builds beside it, resumes a build stopped half way, then switches and drops the old tables',
    async () => {
      const expected = await writeLog(EVENTS);

      // Layout 1, built the blocking way: a fresh projection on a written log.
      let opened = open(probeLayout1);
      expect(await ask(opened.runtime)).toEqual({
        layout: 1,
        events: EVENTS,
        chars: expected.chars,
        checkpoint: EVENTS - 1,
      });
      await opened.close();

      // The code now writes layout 2: it builds beside layout 1, which goes on answering.
      opened = open(probeLayout2);
      expect(building(opened.runtime)).toEqual([
        expect.objectContaining({ projection: PROBE, from: 1, to: 2 }),
      ]);
      const first = await queryWhileBuilding(
        opened,
        expected,
        (applied) => applied >= EVENTS * 0.3,
      );
      expectAnsweredFromOldLayout(first);
      await opened.close(); // half way: as a crash leaves it, each chunk committed or not

      const stoppedAt = builtSoFar();
      expect(stoppedAt).toBeGreaterThanOrEqual(EVENTS * 0.3 - 1);
      expect(stoppedAt).toBeLessThan(EVENTS - 1);

      // Reopened: the half-built layout does not serve; the build resumes where it stopped.
      opened = open(probeLayout2);
      expect((await ask(opened.runtime)).layout).toBe(1);
      const second = await queryWhileBuilding(opened, expected);
      expectAnsweredFromOldLayout(second);
      const during = [...first, ...second].filter(
        ({ applied, total }) => applied !== undefined && total !== undefined && applied < total,
      );
      // Queries were answered while the build was still in progress, and it moved between them.
      expect(during.length).toBeGreaterThanOrEqual(20);
      const progress = second.flatMap(({ applied }) => (applied === undefined ? [] : [applied]));
      expect(progress[0]).toBeGreaterThanOrEqual(stoppedAt);
      expect(new Set(progress).size).toBeGreaterThan(5);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      // Switched: layout 2 answers, with everything the client wrote meanwhile.
      expect(building(opened.runtime)).toEqual([]);
      expect(await ask(opened.runtime)).toEqual({
        layout: 2,
        events: expected.events,
        chars: expected.chars,
        checkpoint: expected.events - 1,
      });
      await opened.append('after the switch');
      expect(await ask(opened.runtime)).toMatchObject({ layout: 2, events: expected.events + 1 });
      expect(opened.said.some((text) => text.includes('building it beside layout 1'))).toBe(true);
      expect(opened.said.at(-1)).toMatch(
        /layout 2 .*: caught up and switched to; layout 1's tables are dropped\.$/,
      );
      await opened.close();
      expect(tableNames()).toEqual(['probe_by_kind__v2', 'probe_by_kind_seq__v2']);

      // The next open serves layout 2 at once, with nothing to build.
      opened = open(probeLayout2);
      expect(building(opened.runtime)).toEqual([]);
      expect(await ask(opened.runtime)).toMatchObject({ layout: 2, events: expected.events + 1 });
      await opened.close();
    },
    TIMEOUT_MS,
  );
});
