/** The SQLite key store: data keys created once, tombstones, and refusals at open. */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rejectionOf } from '../support/collect.js';
import { walCommits } from '../support/wal-commits.js';
import { openSqliteKeyStore, type KeyStore } from '../../src/keys/index.js';
import { randomMasterKey, sqliteFileBytes, thrownBy, useTempDir } from './key-files.js';

describe('SQLite key store', () => {
  const dir = useTempDir();
  const path = () => join(dir(), 'memory.db.keys');
  const masterKey = randomMasterKey();
  const open = (create = true) => openSqliteKeyStore(path(), { masterKey, create });
  let store: KeyStore | undefined;
  afterEach(() => store?.close());

  it('creates each key once and returns the same bytes to later calls and after reopening', async () => {
    store = open();
    const first = await store.keysFor('default', ['a', 'b', 'a']);
    expect([...first.keys()]).toEqual(['a', 'b']);
    expect(first.get('a')).toHaveLength(32);
    expect(first.get('a')).not.toEqual(first.get('b'));
    expect(await store.keysFor('default', ['b', 'a'])).toEqual(first);
    store.close();
    store = open(false);
    expect(await store.keysFor('default', ['a', 'b'])).toEqual(first);
    // The same item id in another memory is another item with its own key.
    expect((await store.keysFor('other', ['a'])).get('a')).not.toEqual(first.get('a'));
  });

  it('reports keys as bytes, erased items as erased, and items never keyed as absent', async () => {
    store = open();
    const keys = await store.keysFor('default', ['kept', 'gone']);
    store.beginErasure('default', 'e1', ['gone']);
    store.completeErasure('default', 'e1');
    const states = store.lookup('default', ['kept', 'gone', 'plain']);
    expect(states.get('kept')).toEqual(keys.get('kept'));
    expect(states.get('gone')).toBe('erased');
    expect(states.has('plain')).toBe(false);
  });

  it('refuses keysFor on an erased item with ALREADY_ERASED naming it, creating no key of the batch', async () => {
    store = open();
    await store.keysFor('default', ['gone']);
    store.beginErasure('default', 'e1', ['gone']);
    store.completeErasure('default', 'e1');
    expect(await rejectionOf(store.keysFor('default', ['new', 'gone']))).toMatchObject({
      code: 'ALREADY_ERASED',
      message: expect.stringContaining('gone') as string,
    });
    expect(store.lookup('default', ['new']).has('new')).toBe(false);
  });

  it('commits the keys asked for in one turn of the event loop once; a refused batch of the group creates none of its keys', async () => {
    store = open();
    await store.keysFor('default', ['gone']);
    store.beginErasure('default', 'e1', ['gone']);
    store.completeErasure('default', 'e1');
    const before = walCommits(path());
    const results = await Promise.allSettled([
      store.keysFor('default', ['x', 'gone']),
      store.keysFor('default', ['x']),
      store.keysFor('other', ['y']),
    ]);
    expect(walCommits(path()) - before).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    // The refused batch's key for x was rolled back with its savepoint: x's key is the second's.
    const x = (results[1] as PromiseFulfilledResult<Map<string, Buffer>>).value.get('x');
    expect(store.lookup('default', ['x']).get('x')).toEqual(x);
    store.close();
    store = open(false);
    expect(store.lookup('default', ['x']).get('x')).toEqual(x);
    expect(store.lookup('other', ['y']).get('y')).toHaveLength(32);
  });

  it('returns copies: a caller wiping its key does not change the stored one', async () => {
    store = open();
    const key = (await store.keysFor('default', ['a'])).get('a')!;
    const copy = Buffer.from(key);
    key.fill(0);
    expect(store.lookup('default', ['a']).get('a')).toEqual(copy);
  });

  it('creates the file with mode 0600 and keeps its -wal and -shm at 0600', async () => {
    store = open();
    await store.keysFor('default', ['a']);
    for (const file of sqliteFileBytes(path()).keys())
      expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a missing key store with KEY_STORE_MISSING naming the path when create is false', () => {
    expect(thrownBy(open.bind(null, false))).toMatchObject({
      code: 'KEY_STORE_MISSING',
      message: expect.stringContaining(path()) as string,
    });
    expect(existsSync(path())).toBe(false);
  });

  it('refuses a wrong master key with KEY_STORE_LOCKED and leaves the file byte for byte as it was', async () => {
    store = open();
    await store.keysFor('default', ['a', 'b']);
    store.close();
    store = undefined;
    const before = readFileSync(path());
    const error = thrownBy(() =>
      openSqliteKeyStore(path(), { masterKey: randomMasterKey(), create: true }),
    );
    expect(error).toMatchObject({
      code: 'KEY_STORE_LOCKED',
      message: expect.stringContaining(`does not open the key store at ${path()}`) as string,
    });
    expect(readFileSync(path()).equals(before)).toBe(true);
    expect(existsSync(`${path()}-wal`)).toBe(false);
  });

  it('refuses a file that is not a key store, and a database of something else', () => {
    writeFileSync(path(), randomBytes(4096), { mode: 0o600 });
    expect(thrownBy(() => open())).toMatchObject({ code: 'KEY_STORE_LOCKED' });
    const other = join(dir(), 'events.db');
    const db = new Database(other);
    db.exec('CREATE TABLE events (id TEXT)');
    db.close();
    expect(thrownBy(() => openSqliteKeyStore(other, { masterKey, create: true }))).toMatchObject({
      code: 'KEY_STORE_LOCKED',
      message: expect.stringContaining(other) as string,
    });
  });

  it('refuses a wrapped key moved to another item: it is bound to its memory and item', async () => {
    store = open();
    await store.keysFor('default', ['a', 'b']);
    store.close();
    store = undefined;
    const db = new Database(path());
    db.prepare(
      "UPDATE item_keys SET wrapped = (SELECT wrapped FROM item_keys WHERE item_id = 'a') WHERE item_id = 'b'",
    ).run();
    db.close();
    store = open(false);
    expect(thrownBy(() => store!.lookup('default', ['b']))).toMatchObject({
      code: 'KEY_STORE_LOCKED',
      message: expect.stringContaining('b') as string,
    });
  });

  it('refuses an invalid memory id and every call after close', async () => {
    store = open();
    expect(await rejectionOf(store.keysFor('no/slash', ['a']))).toMatchObject({
      code: 'INVALID_MEMORY_ID',
    });
    store.close();
    expect(thrownBy(() => store!.lookup('default', ['a']))).toMatchObject({ code: 'STORE_CLOSED' });
  });
});
