/**
 * A bump of the read models' layout on a 100,000-event memory in a real SQLite file, while a
 * client queries state pages (now and as of a seq), item history, recall stats and search, and
 * appends: the next layout (layout-upgrade-support.ts, `upgrade`: made from the real code) is
 * built beside the serving one, every answer meanwhile equals `replay()` of the log the
 * client knows, a close half way resumes, and after the switch the old tables are gone and the
 * answers are the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { READ_MODELS, SEARCH, type ReadModelLayoutCode } from '../../src/read-models/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import {
  askAndCheck,
  building,
  servingItems,
  upgrade,
  writeLog,
  type Oracle,
} from './layout-upgrade-support.js';

const EVENTS = 100_000;
const MEMORY = 'big';
const TIMEOUT_MS = 300_000;
/** Most query rounds a client makes while waiting for a build (it fails rather than spins). */
const MOST_ROUNDS = 20_000;
const NEXT = upgrade.to.version;

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-rm-upgrade-'));
  path = join(dir, 'memory.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(layout: ReadModelLayoutCode, said: string[] = []): Memledger {
  return openMemledger({
    store: openSqliteStore({ path, synchronous: 'NORMAL' }),
    readModelLayout: layout,
    onNotice: (text) => said.push(text),
  });
}

/** A query round taken while a build ran, with the build's progress right after it. */
interface Sample {
  readonly serving: string;
  /** How many of the read models' and search's builds had switched after it (never one alone). */
  readonly switched: number;
  readonly applied: number | undefined;
  readonly total: number | undefined;
}

/**
 * Query rounds (an append every fifth) until no build runs or `enough` says so; each round
 * waits for the next turn of the event loop first, as a request arriving would.
 */
async function queryWhileBuilding(
  memledger: Memledger,
  oracle: Oracle,
  enough: (applied: number) => boolean = () => false,
): Promise<Sample[]> {
  const memory = await memledger.memory(MEMORY);
  const samples: Sample[] = [];
  for (let round = 0; round < MOST_ROUNDS; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    const build = building(memledger).find(({ projection }) => projection === READ_MODELS);
    if (build === undefined || enough(build.applied)) return samples;
    if (round % 5 === 4)
      oracle.add([await memory.recordMessage({ speaker: 'user', content: `live ${round} t1` })]);
    const serving = servingItems(memledger);
    await askAndCheck(memory, oracle, round);
    const after = building(memledger).find(({ projection }) => projection === READ_MODELS);
    const switched = memledger.projections.layoutBuilds().filter((b) => b.switched).length;
    samples.push({ serving, switched, applied: after?.applied, total: after?.total });
  }
  throw new Error(`No switch within ${MOST_ROUNDS} query rounds.`);
}

const names = (): string[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], string>(
        "SELECT name FROM sqlite_schema WHERE name LIKE 'rm\\_%' ESCAPE '\\' OR name LIKE 'search\\_%' ESCAPE '\\' ORDER BY name",
      )
      .pluck()
      .all();
  } finally {
    db.close();
  }
};

const builtSoFar = (): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], number>(`SELECT max(seq) FROM rm_items__v${NEXT}`).pluck().get()!;
  } finally {
    db.close();
  }
};

describe("a bump of the read models' layout on a 100,000-event memory", () => {
  it(
    'answers every query as replay() does from the serving layout while the next one builds beside it, resumes after a close, then switches read models and search together and drops the old tables',
    async () => {
      const oracle = await writeLog(path, MEMORY, EVENTS);

      // This release's layout, built the blocking way on the written log.
      let memledger = open(upgrade.from);
      let memory = await memledger.memory(MEMORY);
      for (let round = 0; round < 4; round++) await askAndCheck(memory, oracle, round);
      await memledger.close();

      // The next layout: built beside, while this release's goes on answering.
      const said: string[] = [];
      memledger = open(upgrade.to, said);
      expect(building(memledger).map(({ projection, from, to }) => [projection, from, to])).toEqual(
        [
          [READ_MODELS, upgrade.from.version, NEXT],
          [SEARCH, upgrade.from.version, NEXT],
        ],
      );
      const first = await queryWhileBuilding(
        memledger,
        oracle,
        (applied) => applied >= EVENTS * 0.3,
      );
      await memledger.close(); // half way: each chunk committed or not, as a crash leaves it
      const stoppedAt = builtSoFar();
      expect(stoppedAt).toBeGreaterThanOrEqual(EVENTS * 0.3 - 1);
      expect(stoppedAt).toBeLessThan(EVENTS - 1);

      // Reopened: the half-built layout does not serve; the build resumes where it stopped.
      memledger = open(upgrade.to, said);
      expect(servingItems(memledger)).toBe('rm_items');
      const second = await queryWhileBuilding(memledger, oracle);
      const samples = [...first, ...second];
      const during = samples.filter(
        ({ applied, total }) => applied !== undefined && total !== undefined && applied < total,
      );
      // Queries were answered while the build was in progress, from the old layout, and the
      // build moved between them.
      expect(during.length).toBeGreaterThanOrEqual(20);
      expect(during.every(({ serving }) => serving === 'rm_items')).toBe(true);
      expect(samples.filter(({ switched }) => switched === 1)).toEqual([]);
      const progress = second.flatMap(({ applied }) => (applied === undefined ? [] : [applied]));
      expect(progress[0]).toBeGreaterThanOrEqual(stoppedAt);
      expect(new Set(progress).size).toBeGreaterThan(5);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      // Switched, read models and search at once: the next layout answers the same.
      expect(building(memledger)).toEqual([]);
      expect(servingItems(memledger)).toBe(`rm_items__v${NEXT}`);
      memory = await memledger.memory(MEMORY);
      for (let round = 0; round < 8; round++) await askAndCheck(memory, oracle, round);
      oracle.add([await memory.recordMessage({ speaker: 'user', content: 'after t2' })]);
      for (let round = 0; round < 4; round++) await askAndCheck(memory, oracle, round);
      const switched = said.filter((text) => text.includes('caught up and switched to'));
      expect(switched).toHaveLength(2);
      await memledger.close();
      const left = names();
      expect(left.filter((name) => !name.includes(`__v${NEXT}`))).toEqual([]);
      expect(left).toEqual(expect.arrayContaining([`rm_items__v${NEXT}`, `search_fts__v${NEXT}`]));

      // The next open serves the next layout at once, with nothing to build.
      memledger = open(upgrade.to);
      expect(building(memledger)).toEqual([]);
      memory = await memledger.memory(MEMORY);
      for (let round = 0; round < 4; round++) await askAndCheck(memory, oracle, round);
      await memledger.close();
    },
    TIMEOUT_MS,
  );
});
