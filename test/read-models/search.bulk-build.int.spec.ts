/**
 * The search index built in one long catch-up (src/projections/bulk-catch-up.ts: the log read
 * inside large transactions, pages of CATCH_UP_CHUNK) answers as one built a search at a time
 * (short catch-ups, a transaction per chunk), and leaves an erased item's words out, on its first
 * build and on a rebuild.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import { openMemledger, type Memledger, type MemoryHandle } from '../../src/memory/index.js';
import { CATCH_UP_CHUNK } from '../../src/projections/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

/** More items than one catch-up chunk holds, so the first search catches up in bulk. */
const ITEMS = CATCH_UP_CHUNK + 600;
const WORDS = ['harbour', 'crane', 'lighthouse', 'ferry', 'schedule', 'keeper', 'tide', 'pier'];
const QUERIES = ['harbour crane', 'lighthouse keeper', 'ferry tide schedule', 'pier', 'zanzibar'];

let dir: string;
const opened: Memledger[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-search-bulk-'));
});
afterEach(async () => {
  for (const memledger of opened.splice(0)) await memledger.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(name: string): Promise<MemoryHandle> {
  const path = join(dir, `${name}.db`);
  const memledger = openMemledger({
    store: openSqliteStore({ path, synchronous: 'NORMAL' }),
    keys: openSqliteKeyStore(`${path}.keys`, {
      masterKey: masterKeyFromBytes(randomBytes(32)),
      create: true,
    }),
    onNotice: () => undefined,
  });
  opened.push(memledger);
  return memledger.memory('bulk');
}

const text = (i: number) =>
  `${WORDS[i % WORDS.length]!} ${WORDS[(i * 7) % WORDS.length]!} note ${i}` +
  (i % 97 === 0 ? ' zanzibar passcode' : '');

/**
 * The same items in both memories: messages and documents, some deleted, the zanzibar ones
 * erased; `searchEvery` searches after that many items (0: never), so search follows in short
 * catch-ups.
 */
async function write(memory: MemoryHandle, searchEvery: number): Promise<void> {
  const secrets: string[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const item =
      i % 3 === 0
        ? await memory.addDocument({ name: `doc-${i}.md`, text: text(i) })
        : await memory.recordMessage({ speaker: 'user', content: text(i) });
    if (i % 97 === 0) secrets.push(item.id);
    else if (i % 50 === 49) await memory.deleteContent({ targets: [item.id], reason: 'tidy' });
    if (searchEvery > 0 && i % searchEvery === 0) await memory.search('harbour');
  }
  await memory.deleteAndErase({ targets: secrets, reason: 'asked', requestedBy: 'user' });
}

/** Every query's answer now and as of the middle of the log, by seq, kind and score. */
async function answers(memory: MemoryHandle): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES)
    for (const asOfSeq of [undefined, ITEMS / 2]) {
      const hits = await memory.search(query, { limit: 25, ...(asOfSeq ? { asOfSeq } : {}) });
      out.push(hits.map((hit) => [hit.seq, hit.kind, hit.score]));
    }
  return out;
}

const indexedWith = (path: string, word: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare('SELECT count(*) FROM search_fts WHERE search_fts MATCH ?')
      .pluck()
      .get(`"${word}"`) as number;
  } finally {
    db.close();
  }
};

describe('search built in one long catch-up', () => {
  it('answers every query as an index built a search at a time, erased words left out', async () => {
    const bulk = await open('bulk');
    const stepwise = await open('stepwise');
    await write(bulk, 0);
    await write(stepwise, 300);
    const expected = await answers(stepwise);
    expect(expected.flat().length).toBeGreaterThan(50);
    expect(await answers(bulk)).toEqual(expected);
    expect((await bulk.search('zanzibar passcode')).length).toBe(0);
    expect(indexedWith(join(dir, 'bulk.db'), 'passcode')).toBe(0);
    expect(indexedWith(join(dir, 'bulk.db'), 'harbour')).toBeGreaterThan(CATCH_UP_CHUNK / 8);
  }, 120_000);

  it('answers the same after a rebuild, which never indexes an erased item again', async () => {
    const memory = await open('rebuilt');
    await write(memory, 0);
    const before = await answers(memory);
    await memory.rebuild();
    expect(await answers(memory)).toEqual(before);
    expect(indexedWith(join(dir, 'rebuilt.db'), 'passcode')).toBe(0);
    expect(indexedWith(join(dir, 'rebuilt.db'), 'zanzibar')).toBe(0);
  }, 120_000);
});
