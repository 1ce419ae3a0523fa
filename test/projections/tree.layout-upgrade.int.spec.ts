/**
 * A change of the tree's layout on a live file: the next layout keeps the tree's as its
 * `previous`, so roots and proofs go on being answered from the rows the file holds while the
 * new rows are built beside them from the log, catch-ups reach both, and once caught up the new
 * rows serve (the old table dropped) with the same roots, read by the runtime and by
 * `recordedTree` alike. Layout 2 here is layout 1's code under another version: what a release
 * that changes the rows would ship beside its own.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProjectionRuntime, type ProjectionRuntime } from '../../src/projections/index.js';
import {
  recordedTree,
  TREE_ROWS_TABLE,
  treeProjection,
  type TreeHandler,
  type TreeProjection,
} from '../../src/projections/tree/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { toBase64 } from '../../src/verify/index.js';
import { message } from '../support/events.js';
import { building } from './upgrade-probe.js';
import { leafInputs, referenceRoot } from './tree-drive.js';

const EVENTS = 20_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-tree-upgrade-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const treeLayout2: TreeProjection = { ...treeProjection, version: 2, previous: treeProjection };

function open(path: string, tree: TreeProjection) {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const runtime = openProjectionRuntime(store.embedded!.database, path, store, store.embedded);
  runtime.register(tree);
  return { store, runtime };
}

const treeOf = (runtime: ProjectionRuntime) => runtime.handler<TreeHandler>('tree')!;

function treeTables(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[string], string>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ORDER BY name",
      )
      .pluck()
      .all(`${TREE_ROWS_TABLE}%`);
  } finally {
    db.close();
  }
}

describe('a change of the tree’s layout', () => {
  it('answers roots from the old rows while the new ones build beside them, then from the new rows with the same roots', async () => {
    const path = join(dir, 'tree.db');
    const first = open(path, treeProjection);
    for (let at = 0; at < EVENTS; at += 2000)
      await first.store
        .log('m')
        .append(Array.from({ length: 2000 }, (_, i) => message(`m ${at + i}`)));
    // The tree follows the log: caught up as a checkpoint would before answering.
    await first.runtime.advance('m', { needed: ['tree'] });
    const before = toBase64(treeOf(first.runtime).root('m', EVENTS));
    await first.store.close();

    const second = open(path, treeLayout2);
    try {
      expect(building(second.runtime)).toEqual([
        expect.objectContaining({ projection: 'tree', from: 1, to: 2 }),
      ]);
      // Answered at once, from the rows the file holds.
      expect(toBase64(treeOf(second.runtime).root('m', EVENTS))).toBe(before);
      const [late] = await second.store.log('m').append([message('while building')]);
      expect(late!.seq).toBe(EVENTS);
      await second.runtime.advance('m', { needed: ['tree'] });
      expect(treeOf(second.runtime).size('m')).toBe(EVENTS + 1);
      let answered = 0;
      for (let i = 0; i < 10_000 && building(second.runtime).length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(toBase64(treeOf(second.runtime).root('m', EVENTS))).toBe(before);
        answered++;
      }
      expect(building(second.runtime)).toEqual([]);
      expect(answered).toBeGreaterThan(0);

      const root = toBase64(await referenceRoot(await leafInputs(second.store.log('m'))));
      await second.runtime.advance('m', { needed: ['tree'] });
      const tree = treeOf(second.runtime);
      expect(tree.size('m')).toBe(EVENTS + 1);
      expect(toBase64(tree.root('m', EVENTS))).toBe(before);
      expect(toBase64(tree.root('m', EVENTS + 1))).toBe(root);
      const recorded = recordedTree(second.store.embedded!.database, 'm', treeLayout2);
      expect(recorded).toBeDefined();
      expect(toBase64(recorded!.tree.root('m', EVENTS + 1))).toBe(root);
      // The layout this code does not read is not read.
      expect(recordedTree(second.store.embedded!.database, 'm')).toBeUndefined();
    } finally {
      second.runtime.close();
      await second.store.close();
    }
    expect(treeTables(path)).toEqual([`${TREE_ROWS_TABLE}__v2`]);
  }, 120_000);
});
