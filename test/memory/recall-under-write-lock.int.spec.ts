/**
 * Invariant 8 on a shared SQLite file without retries: two memledgers (two connections, as two
 * processes would have) on one file, one recalling while the other writes and deletes. The
 * recall runs under the store's write lock, so the log cannot move between its computation and
 * its append: with `recallRetries: 0` not one recall may give up, and none may return content
 * deleted at or before its own seq.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay } from '../../src/core/index.js';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const dir = mkdtempSync(join(tmpdir(), 'memledger-recall-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recall on a SQLite file another writer keeps moving', () => {
  let reader: Memledger;
  let writer: Memledger;
  beforeEach(() => {
    const path = join(dir, `shared-${Date.now()}.db`);
    reader = openMemledger({ store: openSqliteStore({ path }), recallRetries: 0 });
    writer = openMemledger({ store: openSqliteStore({ path }), recallRetries: 0 });
  });
  afterEach(async () => {
    await reader.close();
    await writer.close();
  });

  it('never gives up and never returns content deleted before its Recall (no retries allowed)', async () => {
    const readerMemory = await reader.memory();
    const writerMemory = await writer.memory();
    const live: string[] = [];
    for (let i = 0; i < 20; i++) {
      live.push(
        (await writerMemory.recordMessage({ speaker: 'user', content: `tea note ${i}` })).id,
      );
    }
    const recalls: Promise<unknown>[] = [];
    for (let round = 0; round < 150; round++) {
      recalls.push(readerMemory.recall({ query: 'tea note', limit: 5 }));
      // The other connection moves the log between the recall's catch-up and its append.
      const id = (
        await writerMemory.recordMessage({ speaker: 'user', content: `tea note x${round}` })
      ).id;
      live.push(id);
      const victim = live.splice(round % live.length, 1)[0]!;
      await writerMemory.deleteContent({ targets: [victim], reason: 'moved on' });
    }
    const results = await Promise.allSettled(recalls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    // Invariant 8, checked on the log: every recalled id was visible content at the Recall.
    const log = await writerMemory.readEvents();
    for (const event of log) {
      if (event.kind !== 'recall') continue;
      const before = replay(log.slice(0, event.seq));
      const visible = new Set([...before.visibleMessages].map((m) => m.id));
      for (const id of event.recalled) expect(visible.has(id)).toBe(true);
    }
    expect(log.filter((e) => e.kind === 'recall')).toHaveLength(150);
  });
});
