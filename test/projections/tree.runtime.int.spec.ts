/**
 * The tree on the projection runtime, as openMemledger registers it: on a SQLite file too it
 * follows the log by catch-up (an append writes no tree row; the first checkpoint or proof after
 * it writes them); a log written by the bare store gets its tree the same way on first use; a layout
 * version other than the tree's drops its rows and builds them again; and the tree a file holds
 * is read as it stands by `recordedTree`. Roots are checked against memledger/verify's, computed
 * from the leaf inputs alone.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger } from '../../src/memory/index.js';
import { recordedTree, TREE_ROWS_TABLE } from '../../src/projections/tree/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { toBase64 } from '../../src/verify/index.js';
import { doc, message } from '../support/events.js';
import { leafInputs, referenceRoots } from './tree-drive.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-tree-runtime-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tree rows a file holds, read on a connection of its own. */
function rowCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], number>(`SELECT count(*) FROM ${TREE_ROWS_TABLE}`).pluck().get()!;
  } finally {
    db.close();
  }
}

describe('the tree on the projection runtime', () => {
  it('writes no leaf in an append on SQLite: the first checkpoint after it catches the tree up', async () => {
    const path = join(dir, 'follows.db');
    const store = openSqliteStore({ path });
    const memledger = openMemledger({ store });
    try {
      const memory = await memledger.memory('follows');
      await memory.recordMessage({ speaker: 'user', content: 'first words' });
      await memory.addDocument({ name: 'a.md', text: 'a document' });
      // Nothing asked for a checkpoint or a proof yet: the appends wrote no tree row.
      expect(rowCount(path)).toBe(0);
      const roots = await referenceRoots(await leafInputs(store.log('follows')));
      expect((await memory.checkpoint()).root).toBe(toBase64(roots[2]!));
      const found = recordedTree(store.embedded!.database, 'follows')!;
      expect(found.tree.size('follows')).toBe(2);
      expect(rowCount(path)).toBe(2);
      expect(toBase64(found.tree.root('follows', 2))).toBe(toBase64(roots[2]!));
    } finally {
      await memledger.close();
    }
  });

  it('builds the leaves verify builds from the stored fields, with non-ASCII, escapes, a recall and a deletion', async () => {
    const path = join(dir, 'canonical.db');
    const store = openSqliteStore({ path });
    const memledger = openMemledger({ store });
    try {
      const memory = await memledger.memory('canonical');
      const written = await memory.recordMessage({
        speaker: 'Zoë "the user"',
        content: 'emoji \u{1F600}, tab\t, newline\n, quote ", backslash \\, \u2028 and \u0001',
      });
      await memory.addDocument({ name: 'é/ü.md', text: '€ 1e+30 </script>' });
      await memory.recall({ query: 'emoji', limit: 5 });
      await memory.deleteContent({ targets: [written.id], reason: "test: a deletion's leaf" });
      const roots = await referenceRoots(await leafInputs(store.log('canonical')));
      await memory.checkpoint();
      const found = recordedTree(store.embedded!.database, 'canonical')!;
      expect(toBase64(found.tree.root('canonical', 4))).toBe(toBase64(roots[4]!));
    } finally {
      await memledger.close();
    }
  });

  it('catches up a log written without the tree on first use, and again after each append', async () => {
    const path = join(dir, 'bare.db');
    const bare = openSqliteStore({ path });
    await bare.log('bare').append([message('one'), doc('two'), message('three')]);
    await bare.close();
    const store = openSqliteStore({ path });
    const memledger = openMemledger({ store });
    try {
      expect(recordedTree(store.embedded!.database, 'bare')).toBeUndefined();
      const memory = await memledger.memory('bare');
      const checkpoint = await memory.checkpoint();
      const roots = await referenceRoots(await leafInputs(store.log('bare')));
      expect([checkpoint.size, checkpoint.root]).toEqual([3, toBase64(roots[3]!)]);
      await memory.recordMessage({ speaker: 'user', content: 'four' });
      expect(recordedTree(store.embedded!.database, 'bare')!.tree.size('bare')).toBe(3);
      expect((await memory.checkpoint()).size).toBe(4);
      expect(recordedTree(store.embedded!.database, 'bare')!.tree.size('bare')).toBe(4);
    } finally {
      await memledger.close();
    }
  });

  it('drops and rebuilds the tree when its recorded layout version is another', async () => {
    const path = join(dir, 'layout.db');
    const first = openMemledger({ store: openSqliteStore({ path }) });
    const memory = await first.memory('layout');
    for (const word of ['a', 'b', 'c', 'd', 'e'])
      await memory.recordMessage({ speaker: 'user', content: word });
    const before = await memory.checkpoint();
    await first.close();
    const db = new Database(path);
    db.prepare("UPDATE projection_versions SET version = 0 WHERE name = 'tree'").run();
    db.close();
    const store = openSqliteStore({ path });
    const again = openMemledger({ store });
    try {
      // Registering the tree at version 1 dropped the old rows; the next checkpoint rebuilds them.
      expect(rowCount(path)).toBe(0);
      expect(recordedTree(store.embedded!.database, 'layout')!.tree.size('layout')).toBe(0);
      const after = await (await again.memory('layout')).checkpoint();
      expect([after.size, after.root]).toEqual([before.size, before.root]);
      expect(rowCount(path)).toBe(5);
    } finally {
      await again.close();
    }
  });

  it('reads no tree from a file whose tree is of another layout version', async () => {
    const path = join(dir, 'other-layout.db');
    const memledger = openMemledger({ store: openSqliteStore({ path }) });
    const memory = await memledger.memory('m');
    await memory.recordMessage({ speaker: 'user', content: 'x' });
    await memory.checkpoint();
    await memledger.close();
    const db = new Database(path);
    try {
      expect(recordedTree(db, 'm')!.tree.size('m')).toBe(1);
      expect(recordedTree(db, 'unknown')).toBeUndefined();
      db.prepare("UPDATE projection_versions SET version = 2 WHERE name = 'tree'").run();
      expect(recordedTree(db, 'm')).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
