/**
 * The vector index reads the read models' item index (which items are content, deleted, erased)
 * by the serving layout's table names. A bump of the read models' layout builds their tables
 * beside the serving ones and drops the old ones at the switch: semantic recall must go on
 * working across it, and a deletion after the switch must reach the vectors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import {
  READ_MODELS,
  type ReadModelLayoutCode,
  type ReadModelsHandler,
} from '../../src/read-models/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { hashingEmbedder } from '../support/hashing-embedder.js';
import { building, upgrade } from '../read-models/layout-upgrade-support.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-layout-bump-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (layout: ReadModelLayoutCode): Memledger =>
  openMemledger({
    store: openSqliteStore({ path: join(dir, 'm.db') }),
    readModelLayout: layout,
    embeddings: { embedder: hashingEmbedder({ model: 'hash', dimensions: 32 }) },
    onNotice: () => undefined,
  });

const itemTable = (memledger: Memledger) =>
  memledger.projections.handler<ReadModelsHandler>(READ_MODELS)!.layout.names.rm_items;

/** Waits (giving the thread back) until no layout is being built beside. */
async function untilSwitched(memledger: Memledger): Promise<void> {
  while (building(memledger).length > 0) await new Promise((resolve) => setImmediate(resolve));
}

describe("the vector index across a bump of the read models' layout", () => {
  it('recalls by meaning after the switch, and a deletion then leaves the semantic answers', async () => {
    let memledger = open(upgrade.from);
    let memory = await memledger.memory('m');
    const written = [];
    for (let i = 0; i < 30; i++)
      written.push(
        await memory.recordMessage({
          speaker: 'user',
          content: i === 7 ? 'my daughter Sophie plays the violin' : `grocery list item ${i}`,
        }),
      );
    const sophie = written[7]!;
    const before = await memory.recall({ query: 'daughter Sophie violin', mode: 'semantic' });
    expect(before.recall.retrieval?.method).toBe('semantic');
    expect(before.items.map((item) => item.id)).toContain(sophie.id);
    await memledger.close();

    memledger = open(upgrade.to);
    memory = await memledger.memory('m');
    await untilSwitched(memledger);
    expect(itemTable(memledger)).toBe(`rm_items__v${upgrade.to.version}`);

    const after = await memory.recall({ query: 'daughter Sophie violin', mode: 'semantic' });
    expect(after.recall.retrieval?.method).toBe('semantic');
    expect(after.items.map((item) => item.id)).toContain(sophie.id);

    await memory.deleteContent({ targets: [sophie.id], reason: 'asked to forget' });
    const deleted = await memory.recall({ query: 'daughter Sophie violin', mode: 'semantic' });
    expect(deleted.items.map((item) => item.id)).not.toContain(sophie.id);
    await memledger.close();
  }, 60_000);
});
