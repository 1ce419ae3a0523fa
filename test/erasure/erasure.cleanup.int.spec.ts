/**
 * Issue 28: an erasure leaves nothing behind, beside a reader and across a stop. Each durable
 * store (SQLite; EventStoreDB with its read-model file) erases an item found by search while a
 * reader in another connection holds a snapshot of every file that can hold its words: the
 * erasure answers at once with its clean-up pending (durably recorded), and the scrub completes
 * once the reader lets go. A store closed with a clean-up still pending scrubs on its next open,
 * before it serves, and says so. Files are scanned while the store is open: a clean close would
 * checkpoint on its own and hide residue.
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { canary, erasureStoreKinds, type ErasureFiles } from '../support/erasure-stores.js';

const kinds = erasureStoreKinds().filter((kind) => kind.durable);

/** The files that hold `word` (or its tail: FTS pages store terms prefix-compressed). */
function filesHolding(files: ErasureFiles, word: string): string[] {
  const found: string[] = [];
  for (const path of [files.log, files.readModels, files.idIndex, files.keyStore]) {
    if (path === undefined) continue;
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      if (bytes.includes(word) || bytes.includes(word.slice(-8))) found.push(file);
    }
  }
  return found;
}

/** Read transactions on every file that can hold words, as a backup holds them. */
function holdSnapshots(files: ErasureFiles): { release(): void } {
  const paths = [files.log, files.readModels, files.keyStore].filter(
    (path): path is string => path !== undefined,
  );
  const readers = paths.map((path) => {
    const db = new Database(path, { readonly: true });
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return db;
  });
  return {
    release: () => {
      for (const db of readers) {
        db.exec('COMMIT');
        db.close();
      }
    },
  };
}

for (const kind of kinds) {
  describe(`erasure clean-up on ${kind.name}`, () => {
    it('answers at once with the clean-up pending while a reader holds a snapshot, then scrubs every file once it lets go', async () => {
      const env = await kind.open();
      const { memory, keys, files, memledger } = env;
      try {
        const words = canary();
        const item = await memory.recordMessage({ speaker: 'user', content: `said ${words}` });
        expect((await memory.search(words)).map((hit) => hit.id)).toEqual([item.id]);
        const reader = holdSnapshots(files);

        const { cleanup } = await memory.deleteAndErase({ targets: [item.id], reason: 'forget' });
        expect(cleanup).toMatchObject({
          state: 'pending',
          reason: expect.stringContaining('older snapshot') as string,
        });
        expect(memory.erasureCleanup().state).toBe('pending');
        // Recorded durably with the key destruction, for the next open should this one stop.
        expect(keys.pendingCleanups().map((c) => c.memoryId)).toEqual([env.memoryId]);
        expect(memledger.erasureCleanup?.backlog().erasures).toBe(1);

        reader.release();
        await memledger.erasureCleanup!.settled();
        expect(memory.erasureCleanup()).toEqual({ state: 'done' });
        expect(keys.pendingCleanups()).toEqual([]);
        expect(memledger.erasureCleanup?.backlog()).toEqual({ erasures: 0, oldestSeconds: 0 });
        expect(filesHolding(files, words)).toEqual([]);
      } finally {
        await env.close();
      }
    });

    it('scrubs on the next open, before it serves, when a stopped process left a clean-up pending, and says so', async () => {
      const env = await kind.open();
      const words = canary();
      const item = await env.memory.recordMessage({ speaker: 'user', content: `said ${words}` });
      await env.memory.search(words);
      const reader = holdSnapshots(env.files);
      const { cleanup } = await env.memory.deleteAndErase({ targets: [item.id], reason: 'x' });
      expect(cleanup.state).toBe('pending');
      const notices: string[] = [];
      let leftBehind: string[] = [];
      const again = await kind.reopen(env, {
        // The process stopped while the reader still held its snapshot: nothing could scrub.
        afterClose: () => {
          reader.release();
          leftBehind = filesHolding(env.files, words);
        },
        onNotice: (notice) => notices.push(notice),
      });
      expect(leftBehind).not.toEqual([]);
      try {
        expect(notices).toEqual([
          expect.stringContaining(
            '1 erasure clean-up(s) left pending by a process that stopped; scrubbed them before serving',
          ) as string,
        ]);
        expect(filesHolding(again.files, words)).toEqual([]);
        expect(again.keys.pendingCleanups()).toEqual([]);
        expect((await again.memory.getEvent(item.id)).event).toMatchObject({ erased: true });
      } finally {
        await again.close();
      }
    });
  });
}
