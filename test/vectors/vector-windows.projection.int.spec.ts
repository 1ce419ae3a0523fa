/**
 * The vector index's deletions and erasures as a projection on the read models' runtime: on the
 * SQLite store it is applied inline, after the read models, in the transaction of the append that
 * deletes; appends that delete nothing leave its rows and progress untouched while its checkpoint
 * keeps up with the log; without embeddings it is not registered at all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { VECTOR_WINDOWS } from '../../src/read-models/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { hashingEmbedder } from '../support/hashing-embedder.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-windows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every version's `windows` in the file, read through a connection of its own. */
function windowsIn(path: string): number[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], number>('SELECT windows FROM vec_progress ORDER BY key').pluck().all();
  } finally {
    db.close();
  }
}

describe('the vector windows projection on the SQLite store', () => {
  it('applies a deletion in its own append and writes nothing for appends that delete nothing', async () => {
    const path = join(dir, 'log.db');
    const store = openSqliteStore({ path });
    const ledger: Memledger = openMemledger({
      store,
      embeddings: { embedder: hashingEmbedder({ dimensions: 16 }), follow: false },
    });
    try {
      const memory = await ledger.memory('m');
      const first = await memory.recordMessage({ speaker: 'user', content: 'a pony zx1' });
      await memory.recordMessage({ speaker: 'user', content: 'a kettle zx2' });
      // The recall embeds both (seqs 0, 1) and appends itself at seq 2.
      await memory.recall({ query: 'pony', mode: 'semantic' });
      const handler = ledger.projections.handler(VECTOR_WINDOWS)!;
      expect(handler).toBeDefined();
      expect(windowsIn(path)).toEqual([1]);

      await memory.recordMessage({ speaker: 'user', content: 'a fish zx3' });
      await memory.recordMessage({ speaker: 'user', content: 'a goat zx4' });
      expect(windowsIn(path)).toEqual([1]);
      expect(handler.checkpoint('m')).toBe(4);

      const deletion = await memory.deleteContent({ targets: [first.id], reason: 'asked' });
      expect(windowsIn(path)).toEqual([deletion.seq]);
      expect(handler.checkpoint('m')).toBe(deletion.seq);
      const { items } = await memory.recall({ query: 'pony zx1', mode: 'semantic', limit: 10 });
      expect(items.map((item) => item.id)).not.toContain(first.id);
    } finally {
      await ledger.close();
      await store.close().catch(() => undefined);
    }
  });

  it('is not registered without embeddings', async () => {
    const store = openSqliteStore({ path: join(dir, 'plain.db') });
    const ledger = openMemledger({ store });
    try {
      expect(ledger.projections.handler(VECTOR_WINDOWS)).toBeUndefined();
    } finally {
      await ledger.close();
      await store.close().catch(() => undefined);
    }
  });
});
