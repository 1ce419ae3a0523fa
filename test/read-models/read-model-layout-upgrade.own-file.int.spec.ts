/**
 * A bump of the read models' layout where they live in a file of their own (a store that is
 * not SQLite: here the in-memory one), fed by catch-up rather than inside appends: the next
 * layout, with its own copies of the events and its own index by id, is built beside the
 * serving one while a client queries and appends, every answer equal to `replay()`; after the
 * switch the file holds the next layout's tables alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import type { ReadModelLayoutCode } from '../../src/read-models/index.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import {
  askAndCheck,
  building,
  servingItems,
  upgrade,
  writeEvents,
} from './layout-upgrade-support.js';

const EVENTS = 20_000;
const MEMORY = 'own-file';
const MOST_ROUNDS = 20_000;

let dir: string;
let path: string;
let store: MemoryStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-rm-upgrade-own-'));
  path = join(dir, 'read-models.db');
  store = openInMemoryStore();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (layout: ReadModelLayoutCode): Memledger =>
  openMemledger({
    store,
    readModels: path,
    closeStore: false,
    readModelLayout: layout,
    onNotice: () => undefined,
  });

describe("a bump of the read models' layout in a file of their own", () => {
  it('answers as replay() does from the serving layout while the next one builds, then from the next alone', async () => {
    const oracle = await writeEvents(store.log(MEMORY), EVENTS);
    let memledger = open(upgrade.from);
    let memory = await memledger.memory(MEMORY);
    for (let round = 0; round < 4; round++) await askAndCheck(memory, oracle, round);
    await memledger.close();

    memledger = open(upgrade.to);
    memory = await memledger.memory(MEMORY);
    let whileBuilding = 0;
    for (let round = 0; building(memledger).length > 0; round++) {
      if (round === MOST_ROUNDS) throw new Error(`No switch within ${MOST_ROUNDS} query rounds.`);
      await new Promise((resolve) => setImmediate(resolve));
      if (round % 5 === 4)
        oracle.add([await memory.recordMessage({ speaker: 'user', content: `live ${round} t3` })]);
      const serving = servingItems(memledger);
      await askAndCheck(memory, oracle, round);
      if (building(memledger).length === 0) break;
      expect(serving).toBe('rm_items');
      whileBuilding++;
    }
    expect(whileBuilding).toBeGreaterThanOrEqual(5);
    expect(servingItems(memledger)).toBe(`rm_items__v${upgrade.to.version}`);
    for (let round = 0; round < 4; round++) await askAndCheck(memory, oracle, round);
    await memledger.close();

    const db = new Database(path, { readonly: true });
    try {
      const left = db
        .prepare<[], string>(
          "SELECT name FROM sqlite_schema WHERE name LIKE 'rm\\_%' ESCAPE '\\' OR name LIKE 'search\\_%' ESCAPE '\\'",
        )
        .pluck()
        .all();
      expect(left.filter((name) => !name.includes(`__v${upgrade.to.version}`))).toEqual([]);
      expect(left).toEqual(
        expect.arrayContaining([
          `rm_payloads__v${upgrade.to.version}`,
          `rm_items_by_id__v${upgrade.to.version}`,
        ]),
      );
    } finally {
      db.close();
    }
  }, 120_000);
});
