/**
 * The SQLite store's group commit (src/db/group-commit.ts): appends asked for
 * in one turn of the event loop share one transaction, each in its own savepoint, each
 * acknowledged only after the shared commit. Commits are counted in the WAL file itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createMessage, replay } from '../../../src/core/index.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import { readAll } from '../../support/collect.js';
import { erasureStoreKinds, type ErasureEnv } from '../../support/erasure-stores.js';
import { message } from '../../support/events.js';
import { walCommits } from '../../support/wal-commits.js';

describe('SQLite group commit', () => {
  let dir: string;
  let path: string;
  let store: MemoryStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-group-'));
    path = join(dir, 'memledger.db');
    store = openSqliteStore({ path, busyTimeoutMs: 50 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the appends asked for in one turn of the event loop once, each acknowledged with its own seq', async () => {
    await store.log('a').append([message('first')]);
    const before = walCommits(path);
    const stored = await Promise.all([
      store.log('a').append([message('one')]),
      store.log('b').append([message('two'), message('three')]),
      store.log('a').append([message('four')]),
    ]);
    expect(walCommits(path) - before).toBe(1);
    expect(stored.map((events) => events.map((e) => e.seq))).toEqual([[1], [0, 1], [2]]);
    // A caller that awaits each append still gets a commit of its own for each.
    await store.log('a').append([message('five')]);
    await store.log('a').append([message('six')]);
    expect(walCommits(path) - before).toBe(3);
  });

  it('rolls back only the append of a group that fails: the others commit', async () => {
    const original = message('original');
    await store.log().append([original]);
    const results = await Promise.allSettled([
      store.log().append([message('kept 1')]),
      store.log().append([{ ...original, content: 'changed' }]),
      store.log().append([message('refused')], { expectedLastSeq: 0 }),
      store.log().append([message('kept 2')]),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(
      results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : '')),
    ).toEqual(['', 'ID_CONFLICT', 'EXPECTED_SEQ_MISMATCH', '']);
    const events = await readAll(store.log());
    expect(events.map((e) => [e.seq, e.kind === 'message' && e.content])).toEqual([
      [0, 'original'],
      [1, 'kept 1'],
      [2, 'kept 2'],
    ]);
  });

  it('rejects every append of a group, and stores none, when the group cannot take the write lock', async () => {
    await store.log().append([message('before')]);
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    let results: PromiseSettledResult<unknown>[];
    try {
      results = await Promise.allSettled([
        store.log().append([message('x')]),
        store.log().append([message('y')]),
      ]);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(
      results.map((r) => r.status === 'rejected' && (r.reason as { code: string }).code),
    ).toEqual(['STORE_UNAVAILABLE', 'STORE_UNAVAILABLE']);
    expect(await store.log().lastSeq()).toBe(0);
    await store.log().append([message('after')]);
    expect(await store.log().lastSeq()).toBe(1);
  });

  it('commits the appends still waiting when the store closes, before the connection goes', async () => {
    const pending = store.log().append([message('asked for just before close')]);
    await store.close();
    expect((await pending).map((e) => e.seq)).toEqual([0]);
    store = openSqliteStore({ path });
    expect((await readAll(store.log())).length).toBe(1);
  });
});

describe('sealed content and group commit', () => {
  const sqlite = erasureStoreKinds().find((kind) => kind.name.includes('SQLite'))!;
  let env: ErasureEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('gives the read models the words of the append that was stored when two in one group carry the same id', async () => {
    env = await sqlite.open();
    const { log } = env;
    const first = createMessage({ speaker: 'user', content: 'stored words' });
    const racing = { ...first, content: 'refused words', timestamp: '2026-01-01T00:00:00.000Z' };
    const results = await Promise.allSettled([
      log.append([first]),
      log.append([racing]),
      log.append([createMessage({ speaker: 'agent', content: 'alone' })]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { memory } = env;
    expect(await memory.state()).toEqual(replay(await memory.readEvents()));
    expect(JSON.stringify(await memory.state())).not.toContain('refused words');
  });
});
