/**
 * Files written by memledger 0.1.0 open and replay with keys on: they hold no sealed item, so
 * their content reads as written; it can be deleted but not erased (ERASURE_UNAVAILABLE, nothing
 * written), while content written since is sealed and erases as usual.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay, type MemoryState } from '../../src/core/index.js';
import { openMemledger } from '../../src/memory/index.js';
import { openStore } from '../../src/store/open-store.js';
import { readAll, rejectionOf } from '../support/collect.js';
import { stateAsReadToday } from '../support/as-read-today.js';

const fixture = (name: string) => join(import.meta.dirname, '..', 'fixtures', name);
const expected = JSON.parse(readFileSync(fixture('sqlite-0.1.0.expected.json'), 'utf8')) as Record<
  string,
  MemoryState
>;

describe('a SQLite file written by memledger 0.1.0, opened with keys on', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'memledger-erasure-0.1.0-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replays every memory as 0.1.0 did; its items are deleted but not erased (ERASURE_UNAVAILABLE)', async () => {
    const path = join(dir, 'sqlite-0.1.0.db');
    copyFileSync(fixture('sqlite-0.1.0.db'), path);
    const env = { MEMLEDGER_MASTER_KEY: randomBytes(32).toString('hex') };
    const store = await openStore({ kind: 'sqlite', path, keys: { kind: 'beside', path, env } });
    const memledger = openMemledger({ store });
    try {
      expect((await memledger.memoryIds()).sort()).toEqual(Object.keys(expected).sort());
      for (const [memoryId, state] of Object.entries(expected)) {
        const events = await readAll(store.log(memoryId));
        expect(replay(events)).toEqual(stateAsReadToday({ ...state, erased: {} }));
        expect(await (await memledger.memory(memoryId)).state()).toEqual(
          stateAsReadToday({ ...state, erased: {} }),
        );
      }
      const memory = await memledger.memory('default');
      const state = expected.default!;
      const visible = state.visibleMessages[0]!;
      const head = await store.log('default').lastSeq();
      // Visible 0.1.0 content: delete-and-erase is refused whole.
      const both = await rejectionOf(memory.deleteAndErase({ targets: [visible.id], reason: 'x' }));
      expect(both).toMatchObject({ code: 'ERASURE_UNAVAILABLE' });
      expect(both.message).toContain(visible.id);
      expect(await store.log('default').lastSeq()).toBe(head);
      // Deleted 0.1.0 content: the erasure alone is refused.
      const deletion = await memory.deleteContent({ targets: [visible.id], reason: 'forget' });
      const erase = await rejectionOf(memory.eraseContent({ targets: [visible.id], reason: 'x' }));
      expect(erase).toMatchObject({ code: 'ERASURE_UNAVAILABLE' });
      expect(await store.log('default').lastSeq()).toBe(deletion.seq);
      // An item 0.1.0 itself deleted is refused the same way.
      const deletedBefore = Object.keys(state.deleted)[0]!;
      const again = await rejectionOf(
        memory.eraseContent({ targets: [deletedBefore], reason: 'x' }),
      );
      expect(again.code).toBe('ERASURE_UNAVAILABLE');
      // Content written today is sealed and erases beside the old.
      const fresh = await memory.recordMessage({ speaker: 'user', content: 'written today' });
      const { erasure } = await memory.deleteAndErase({ targets: [fresh.id], reason: 'x' });
      expect((await memory.getEvent(fresh.id)).erasedBy?.id).toBe(erasure.id);
      expect((await memory.getEvent(visible.id)).event).toMatchObject({
        content: (visible as { content: string }).content,
      });
    } finally {
      await memledger.close();
    }
  });
});
