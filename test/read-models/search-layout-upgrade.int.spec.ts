/**
 * Search during a bump of the read models' layout, on a real SQLite file: while the next
 * layout's search index is built beside the serving one, searches are answered by the serving
 * index, equal to what `replay()` shows visible; once both switched, by the next one, the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import {
  READ_MODELS,
  SEARCH,
  type ReadModelLayoutCode,
  type ReadModelsHandler,
} from '../../src/read-models/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { building, TERMS, upgrade, writeLog } from './layout-upgrade-support.js';

const EVENTS = 30_000;
const MEMORY = 'searched';
const MOST_ROUNDS = 20_000;

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-search-upgrade-'));
  path = join(dir, 'memory.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = (layout: ReadModelLayoutCode): Memledger =>
  openMemledger({
    store: openSqliteStore({ path, synchronous: 'NORMAL' }),
    readModelLayout: layout,
    onNotice: () => undefined,
  });

/** The search table the serving layout's queries read. */
const servingIndex = (memledger: Memledger): string =>
  memledger.projections.handler<ReadModelsHandler>(READ_MODELS)!.layout.names.search_fts;

describe("search during a bump of the read models' layout", () => {
  it('answers from the serving index while the next one builds, and from the next once both switched', async () => {
    const oracle = await writeLog(path, MEMORY, EVENTS);
    let memledger = open(upgrade.from);
    let memory = await memledger.memory(MEMORY);
    expect((await memory.search('t1', { limit: 1000 })).map((hit) => hit.id).sort()).toEqual(
      oracle.visibleWith('t1'),
    );
    await memledger.close();

    memledger = open(upgrade.to);
    memory = await memledger.memory(MEMORY);
    let whileBuilding = 0;
    for (let round = 0; round < MOST_ROUNDS; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      const index = servingIndex(memledger);
      const term = `t${(round * 31) % TERMS}`;
      const hits = await memory.search(term, { limit: 1000 });
      expect(hits.map((hit) => hit.id).sort()).toEqual(oracle.visibleWith(term));
      const search = building(memledger).find(({ projection }) => projection === SEARCH);
      if (search === undefined) break;
      // Still building after the answer: the serving index gave it.
      expect(index).toBe('search_fts');
      if (search.applied < search.total) whileBuilding++;
    }
    expect(whileBuilding).toBeGreaterThanOrEqual(3);
    expect(building(memledger)).toEqual([]);
    expect(servingIndex(memledger)).toBe(`search_fts__v${upgrade.to.version}`);
    for (const term of ['t0', 't7', 't496'])
      expect((await memory.search(term, { limit: 1000 })).map((hit) => hit.id).sort()).toEqual(
        oracle.visibleWith(term),
      );
    await memledger.close();
  }, 120_000);
});
