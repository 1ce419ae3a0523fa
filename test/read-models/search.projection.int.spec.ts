/**
 * Search as a projection that is not applied inline (src/read-models/search.projection.ts): on
 * the SQLite store an append never indexes, the next search does; and an item erased before
 * search caught up with it is never indexed, its words found nowhere in the index.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

let dir: string;
let path: string;
let memledger: Memledger;
/** A second connection to the same file: it sees every commit of the store's connection. */
let observer: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-search-projection-'));
  path = join(dir, 'memory.db');
});
afterEach(async () => {
  observer.close();
  await memledger.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (keys = false) => {
  memledger = openMemledger({
    store: openSqliteStore({ path, synchronous: 'NORMAL' }),
    ...(keys
      ? {
          keys: openSqliteKeyStore(`${path}.keys`, {
            masterKey: masterKeyFromBytes(randomBytes(32)),
            create: true,
          }),
        }
      : {}),
  });
  observer = new Database(path, { readonly: true });
};
const searchCheckpoint = () =>
  observer.prepare('SELECT search_checkpoint FROM rm_memories').pluck().get() as number;
const indexedRows = () =>
  observer.prepare('SELECT count(*) FROM search_fts').pluck().get() as number;
const indexedWith = (word: string) =>
  observer
    .prepare('SELECT count(*) FROM search_fts WHERE search_fts MATCH ?')
    .pluck()
    .get(`"${word}"`) as number;

describe('search on the projection runtime', () => {
  it('is never indexed by an append, and is by the next search', async () => {
    open();
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'the harbour crane' });
    await memory.search('harbour');
    await memory.recordMessage({ speaker: 'user', content: 'a lighthouse keeper' });
    await memory.addDocument({ name: 'notes.md', text: 'lighthouse schedule' });
    expect(searchCheckpoint()).toBe(0);
    expect(indexedRows()).toBe(1);
    const hits = await memory.search('lighthouse');
    expect(hits.map((hit) => hit.seq).sort()).toEqual([1, 2]);
    expect(searchCheckpoint()).toBe(2);
    expect(indexedRows()).toBe(3);
  });

  it('never indexes an item erased before search caught up with it', async () => {
    open(true);
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'the harbour crane' });
    await memory.search('harbour');
    const secret = await memory.recordMessage({ speaker: 'user', content: 'zanzibar passcode' });
    await memory.deleteAndErase({
      targets: [secret.id],
      reason: 'asked',
      requestedBy: 'user',
    });
    const later = await memory.recordMessage({ speaker: 'user', content: 'zanzibar ferry' });
    expect(searchCheckpoint()).toBe(0);
    // Search reads seqs 1 to 4: the erased item among them is skipped, the later one indexed.
    expect((await memory.search('zanzibar')).map((hit) => hit.id)).toEqual([later.id]);
    expect(searchCheckpoint()).toBe(later.seq);
    expect(indexedWith('passcode')).toBe(0);
    expect(indexedRows()).toBe(2);
  });

  it('drops the words of an item indexed before its erasure in the erasure’s own transaction', async () => {
    open(true);
    const memory = await memledger.memory();
    const secret = await memory.recordMessage({ speaker: 'user', content: 'zanzibar passcode' });
    expect((await memory.search('zanzibar')).map((hit) => hit.id)).toEqual([secret.id]);
    await memory.deleteAndErase({ targets: [secret.id], reason: 'asked', requestedBy: 'user' });
    // Search has not been advanced since: the erasure itself took the words out.
    expect(searchCheckpoint()).toBe(0);
    expect(indexedWith('zanzibar')).toBe(0);
  });
});
