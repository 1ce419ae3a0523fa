/**
 * The search index's catch-up on the SQLite store (read models in the store's file): events
 * that are not content (recalls, deletions) give it nothing to index, so a search or recall
 * after them does not take the write lock just to move the search checkpoint past them; the
 * checkpoint lags over at most 256 of them, and content is always found at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger, type MemoryHandle } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

describe('search catch-up over events that are not content', () => {
  let dir: string;
  let path: string;
  let memledger: Memledger;
  let memory: MemoryHandle;
  /** A second connection to the same file: it sees every commit of the store's connection. */
  let observer: Database.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-search-catch-up-'));
    path = join(dir, 'memory.db');
    memledger = openMemledger({ store: openSqliteStore({ path, synchronous: 'NORMAL' }) });
    memory = await memledger.memory();
    observer = new Database(path, { readonly: true });
  });
  afterEach(async () => {
    observer.close();
    await memledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Changes whenever another connection commits to the file. */
  const dataVersion = () => observer.pragma('data_version', { simple: true }) as number;
  const checkpoints = () =>
    observer
      .prepare(
        `SELECT search_checkpoint AS search,
                (SELECT max(seq) FROM rm_items WHERE mem = m.mem) AS head
           FROM rm_memories AS m`,
      )
      .get() as { search: number; head: number };

  async function addNotes(count: number): Promise<void> {
    for (let i = 0; i < count; i++)
      await memory.addDocument({ name: `note-${i}.md`, text: `harbour crane schedule ${i}` });
  }

  it('a search after recalls alone commits nothing', async () => {
    await addNotes(3);
    await memory.search('harbour'); // indexes the notes
    for (let i = 0; i < 5; i++) await memory.recall({ query: 'crane', limit: 2 });
    const before = dataVersion();
    const hits = await memory.search('schedule');
    expect(dataVersion()).toBe(before);
    expect(hits).toHaveLength(3);
    expect(checkpoints()).toEqual({ search: 2, head: 7 });
  });

  it('content appended after recalls is found by the next search and recall', async () => {
    await addNotes(2);
    for (let i = 0; i < 4; i++) await memory.recall({ query: 'crane', limit: 1 });
    const late = await memory.recordMessage({ speaker: 'user', content: 'the lighthouse keeper' });
    expect((await memory.search('lighthouse')).map((hit) => hit.id)).toEqual([late.id]);
    expect((await memory.recall({ query: 'lighthouse keeper' })).items.map((i) => i.id)).toEqual([
      late.id,
    ]);
    expect(checkpoints().search).toBe(late.seq);
  });

  it('the search checkpoint lags over at most 256 events that are not content', async () => {
    await addNotes(1);
    for (let i = 0; i < 300; i++) await memory.recall({ query: 'crane', limit: 1 });
    await memory.search('crane');
    const { search, head } = checkpoints();
    expect(head).toBe(300);
    expect(head - search).toBeLessThanOrEqual(256);
    expect(search).toBeGreaterThan(0);
  });
});
