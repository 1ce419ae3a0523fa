/**
 * The follower copies the pages it wrote from the write-ahead log into the file (a passive
 * checkpoint) once it has embedded, so the vectors' pages are not left for an append's commit to
 * checkpoint: SQLite checkpoints on the commit that takes the WAL past 1,000 pages, whoever wrote
 * them. Observed on a real SQLite file, in its wal-index.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { hashingEmbedder } from '../support/hashing-embedder.js';

describe('the vector follower on a SQLite file', () => {
  let dir: string;
  let ledger: Memledger | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-follower-checkpoint-'));
  });
  afterEach(async () => {
    await ledger?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoints the vectors it wrote, so the next append does not copy them', async () => {
    const path = join(dir, 'm.db');
    ledger = openMemledger({
      store: openSqliteStore({ path }),
      embeddings: { embedder: hashingEmbedder({ dimensions: 256 }) },
    });
    const memory = await ledger.memory();
    for (let i = 0; i < 40; i++)
      await memory.recordMessage({ speaker: 'user', content: `note ${i} about the paddock` });
    // The appends' frames wait in the WAL: nothing has checkpointed them yet.
    expect(walFrames(path).backfilled).toBeLessThan(walFrames(path).written);
    await ledger.vectors!.idle();
    expect(ledger.vectors!.progress()[0]!.behind).toBe(0);
    // The follower checkpointed once it was done: every frame, its vectors' included, is in the
    // main file, and the next commit has nothing to copy.
    const after = walFrames(path);
    expect(after.written).toBeGreaterThan(0);
    expect(after.backfilled).toBe(after.written);
  });
});

/**
 * The frames in a file's WAL and how many of them a checkpoint copied, from the wal-index (the
 * `-shm` file, native byte order): `mxFrame` at byte 16 of its header, `nBackfill` at byte 96.
 */
function walFrames(path: string): { written: number; backfilled: number } {
  const shm = readFileSync(`${path}-shm`);
  return { written: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
}
