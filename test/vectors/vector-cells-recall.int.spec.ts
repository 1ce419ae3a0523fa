/**
 * Cells through the whole stack (openMemledger on the SQLite store, the hashing test embedder):
 * once a memory's cells are formed, a semantic search that probes every cell returns the
 * brute-force top k of the content visible at the seq asked about, after deletions, after the
 * Erasure of a row that named a cell (its vector leaves the file's bytes, the cell passes to
 * another row) and after a rebuild.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import { openMemledger, type MemoryHandle } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { ROWS_PER_CELL } from '../../src/vectors/vector-cells.js';
import { SEQ_SPAN } from '../../src/vectors/vector-layout.js';
import { itemText, unitVector } from '../../src/vectors/index.js';
import { hashingEmbedder, hashingVector } from '../support/hashing-embedder.js';

const DIMENSIONS = 32;
const CELLS = 3;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'runbook', 'deploy', 'pony', 'kettle', 'key'];
const QUERIES = ['alpha beta', 'deploy key', 'pony runbook gamma'];

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-cells-recall-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Written {
  readonly id: string;
  readonly seq: number;
  readonly content: string;
  gone: number | undefined;
  /** Erased: its content is gone as of every seq, so nothing finds it by meaning. */
  erased?: boolean;
}

function textOf(i: number): string {
  return `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} note ${i}`;
}

function vectorOf(content: string): Float32Array {
  const text = itemText({ kind: 'message', speaker: 'user', content } as Parameters<
    typeof itemText
  >[0]);
  return unitVector(hashingVector(text, DIMENSIONS));
}

/** The scores of the brute-force top k over what is visible right after `asOf`. */
function bruteForce(written: readonly Written[], query: string, asOf: number, k: number) {
  const q = unitVector(hashingVector(query, DIMENSIONS));
  return written
    .filter((w) => !w.erased && w.seq <= asOf && (w.gone === undefined || w.gone > asOf))
    .map((w) => vectorOf(w.content).reduce((sum, x, d) => sum + x * q[d]!, 0))
    .sort((a, b) => b - a)
    .slice(0, k);
}

async function expectExact(handle: MemoryHandle, written: readonly Written[], seqs: number[]) {
  for (const asOf of seqs)
    for (const query of QUERIES) {
      const hits = await handle.search(query, { mode: 'semantic', asOfSeq: asOf, limit: 10 });
      expect(hits.map((h) => h.score)).toEqual(
        bruteForce(written, query, asOf, 10).map((s) => expect.closeTo(s, 5) as unknown as number),
      );
    }
}

describe('a memory whose vectors are in cells, every cell probed', () => {
  it('finds the exact top k as of any seq, after deletions, the erasure of a medoid and a rebuild', async () => {
    const path = join(dir, 'log.db');
    const store = openSqliteStore({ path });
    const ledger = openMemledger({
      store,
      keys: openSqliteKeyStore(join(dir, 'keys.db'), {
        masterKey: masterKeyFromBytes(randomBytes(32)),
        create: true,
      }),
      embeddings: {
        embedder: hashingEmbedder({ dimensions: DIMENSIONS }),
        quantization: 'binary',
        cells: CELLS,
        probes: CELLS,
        follow: false,
      },
    });
    const cellsOf = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .prepare<[], { key: string; cell: number; medoid: bigint }>(
            'SELECT key, cell, medoid FROM vec_cells ORDER BY cell',
          )
          .safeIntegers(true)
          .all();
      } finally {
        db.close();
      }
    };
    try {
      const memory = await ledger.memory();
      const written: Written[] = [];
      for (let i = 0; i < CELLS * ROWS_PER_CELL * 3; i++) {
        const event = await memory.recordMessage({ speaker: 'user', content: textOf(i) });
        written.push({ id: event.id, seq: event.seq, content: textOf(i), gone: undefined });
      }
      await memory.search('warm', { mode: 'semantic' });
      const medoids = cellsOf();
      expect(medoids).toHaveLength(CELLS);

      for (const target of written.filter((_, i) => i % 11 === 5)) {
        const deletion = await memory.deleteContent({ targets: [target.id], reason: 'asked' });
        target.gone = deletion.seq;
      }
      // A medoid whose item is still visible (a deleted item keeps its vector, and may name a cell).
      const named = medoids.find(
        (c) => written.find((w) => w.seq === Number(c.medoid % SEQ_SPAN))?.gone === undefined,
      )!;
      const medoidSeq = Number(named.medoid % SEQ_SPAN);
      const medoid = written.find((w) => w.seq === medoidSeq)!;
      const outcome = await memory.deleteAndErase({ targets: [medoid.id], reason: 'erase it' });
      expect(outcome.cleanup.state).toBe('done');
      medoid.gone = outcome.deletion.seq;
      medoid.erased = true;

      const after = cellsOf();
      expect(after.map((c) => c.medoid)).not.toContain(named.medoid);
      const bytes = Buffer.from(vectorOf(medoid.content).buffer);
      for (const file of [path, `${path}-wal`])
        if (existsSync(file)) expect(readFileSync(file).includes(bytes)).toBe(false);

      const last = written.at(-1)!.seq + 20;
      const seqs = [10, medoidSeq, Math.floor(last / 2), last, outcome.deletion.seq - 1];
      await expectExact(memory, written, seqs);
      await memory.rebuild();
      await expectExact(memory, written, seqs);
    } finally {
      await ledger.close();
      await store.close().catch(() => undefined);
    }
  }, 60_000);
});
