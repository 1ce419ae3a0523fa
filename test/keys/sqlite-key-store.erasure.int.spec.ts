/** Erasure in the SQLite key store: the intent, the destruction, recovery, and the bytes left. */
import { join } from 'node:path';
import { openSqliteKeyStore, type KeyStore } from '../../src/keys/index.js';
import {
  filesHolding,
  randomMasterKey,
  sqliteFileBytes,
  thrownBy,
  useTempDir,
} from './key-files.js';
import Database from 'better-sqlite3';
import { rejectionOf } from '../support/collect.js';

describe('SQLite key store erasure', () => {
  const dir = useTempDir();
  const path = () => join(dir(), 'memory.db.keys');
  const masterKey = randomMasterKey();
  const open = (create = true) =>
    openSqliteKeyStore(path(), { masterKey, create, now: () => new Date('2025-01-02T03:04:05Z') });
  const stores: KeyStore[] = [];
  const opened = (create = true) => {
    const store = open(create);
    stores.push(store);
    return store;
  };
  afterEach(() => stores.splice(0).forEach((s) => s.close()));
  /** The wrapped key of `id` as stored, read through a connection of the test's own. */
  const wrappedOf = (id: string) => {
    const db = new Database(path(), { readonly: true });
    try {
      return db
        .prepare<[string], Buffer>('SELECT wrapped FROM item_keys WHERE item_id = ?')
        .pluck()
        .get(id)!;
    } finally {
      db.close();
    }
  };

  it('lists an intent begun by a process that stopped, and keeps the keys until it completes', async () => {
    const first = opened();
    const keys = await first.keysFor('default', ['a', 'b']);
    first.beginErasure('default', 'e1', ['b', 'a']);
    first.close(); // the process stops before the Erasure is appended
    const restarted = opened(false);
    expect(restarted.pendingErasures()).toEqual([
      {
        memoryId: 'default',
        erasureId: 'e1',
        targets: ['a', 'b'],
        since: '2025-01-02T03:04:05.000Z',
      },
    ]);
    expect(restarted.lookup('default', ['a', 'b'])).toEqual(keys);
    restarted.completeErasure('default', 'e1');
    expect(restarted.pendingErasures()).toEqual([]);
    expect([...restarted.lookup('default', ['a', 'b']).values()]).toEqual(['erased', 'erased']);
  });

  it('abandons an intent whose Erasure never reached the log: the keys stay', async () => {
    const store = opened();
    const keys = await store.keysFor('default', ['a']);
    store.beginErasure('default', 'e1', ['a']);
    // Recording the same intent again (a retry) is a no-op.
    store.beginErasure('default', 'e1', ['a', 'a']);
    expect(store.pendingErasures()).toHaveLength(1);
    store.abandonErasure('default', 'e1');
    store.abandonErasure('default', 'e1');
    expect(store.pendingErasures()).toEqual([]);
    expect(store.lookup('default', ['a'])).toEqual(keys);
  });

  it('completes idempotently, and treats beginning a completed erasure again as a no-op', async () => {
    const store = opened();
    await store.keysFor('default', ['a']);
    store.beginErasure('default', 'e1', ['a']);
    store.completeErasure('default', 'e1');
    store.completeErasure('default', 'e1');
    store.beginErasure('default', 'e1', ['a']);
    expect(store.pendingErasures()).toEqual([]);
    expect(store.lookup('default', ['a']).get('a')).toBe('erased');
  });

  it('refuses to begin an erasure of plain-text, already erased or differently named targets', async () => {
    const store = opened();
    await store.keysFor('default', ['a', 'b']);
    store.beginErasure('default', 'e1', ['a']);
    store.completeErasure('default', 'e1');
    expect(thrownBy(() => store.beginErasure('default', 'e2', ['plain']))).toMatchObject({
      code: 'ERASURE_UNAVAILABLE',
    });
    expect(thrownBy(() => store.beginErasure('default', 'e2', ['b', 'a']))).toMatchObject({
      code: 'ALREADY_ERASED',
      message: expect.stringContaining('a') as string,
    });
    store.beginErasure('default', 'e3', ['b']);
    expect(thrownBy(() => store.beginErasure('default', 'e3', ['a', 'b']))).toMatchObject({
      code: 'ID_CONFLICT',
    });
    expect(thrownBy(() => store.completeErasure('default', 'never'))).toMatchObject({
      code: 'STORE_FAILED',
    });
    expect(store.pendingErasures().map((p) => p.erasureId)).toEqual(['e3']);
  });

  it('leaves neither the data key nor its wrapped bytes of an erased item in the file, WAL or SHM', async () => {
    const store = opened();
    // Enough items for several b-tree pages, so the erased rows sit among others.
    const ids = Array.from({ length: 400 }, (_, i) => `item-${String(i).padStart(4, '0')}`);
    const keys = await store.keysFor('default', ids);
    const erased = ['item-0007', 'item-0200', 'item-0399'];
    const wrapped = new Map([...erased, 'item-0100'].map((id) => [id, wrappedOf(id)]));
    store.beginErasure('default', 'e1', erased);
    store.completeErasure('default', 'e1');
    store.close();

    const files = sqliteFileBytes(path());
    // The scan finds what is there: a kept item's wrapped key.
    expect(filesHolding(files, wrapped.get('item-0100')!)).toEqual([path()]);
    for (const id of erased) {
      expect(filesHolding(files, keys.get(id)!)).toEqual([]);
      expect(filesHolding(files, wrapped.get(id)!)).toEqual([]);
    }
    // A reopened store still serves the others.
    expect(opened(false).lookup('default', ['item-0100']).get('item-0100')).toEqual(
      keys.get('item-0100'),
    );
  });

  it('leaves no key of an erased item in the WAL while another connection keeps the file open', async () => {
    const store = opened();
    const bystander = opened(false);
    const keys = await store.keysFor('default', ['a', 'b']);
    bystander.lookup('default', ['a']);
    const wrapped = wrappedOf('a');
    expect(filesHolding(sqliteFileBytes(path()), wrapped)).not.toEqual([]);
    store.beginErasure('default', 'e1', ['a']);
    store.completeErasure('default', 'e1');
    // Neither connection closed: only completeErasure's checkpoint can have cleared the WAL.
    const files = sqliteFileBytes(path());
    expect([...files.keys()]).toContain(`${path()}-wal`);
    expect(filesHolding(files, keys.get('a')!)).toEqual([]);
    expect(filesHolding(files, wrapped)).toEqual([]);
    expect(filesHolding(files, wrappedOf('b'))).toEqual([path()]);
  });

  it('shows a key destroyed through one connection as erased in the next lookup of another', async () => {
    const reader = opened();
    const writer = opened(false);
    const keys = await writer.keysFor('default', ['a', 'b']);
    // The reader caches both keys, then the writer destroys one.
    expect(reader.lookup('default', ['a', 'b'])).toEqual(keys);
    writer.beginErasure('default', 'e1', ['a']);
    writer.completeErasure('default', 'e1');
    expect(reader.lookup('default', ['a', 'b']).get('a')).toBe('erased');
    expect(await rejectionOf(reader.keysFor('default', ['a']))).toMatchObject({
      code: 'ALREADY_ERASED',
    });
    expect(reader.lookup('default', ['b'])).toEqual(new Map([['b', keys.get('b')]]));
  });
});
