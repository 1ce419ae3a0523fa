/** The key store beside an event database, configured by the environment as the app does. */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openKeyStoreBeside, type KeyStore } from '../../src/keys/index.js';
import { thrownBy, useTempDir } from './key-files.js';

describe('openKeyStoreBeside', () => {
  const dir = useTempDir();
  const database = () => join(dir(), 'memory.db');
  let store: KeyStore | undefined;
  afterEach(() => store?.close());

  it('creates <db>.keys and a 0600 <db>.master-key on first start and reopens them later', async () => {
    store = openKeyStoreBeside(database(), {}, { create: true });
    const keys = await store.keysFor('default', ['a']);
    store.close();
    expect(readdirSync(dir()).sort()).toEqual(['memory.db.keys', 'memory.db.master-key']);
    expect(statSync(`${database()}.master-key`).mode & 0o777).toBe(0o600);
    store = openKeyStoreBeside(database(), {}, { create: false });
    expect(store.description).toContain(`${database()}.keys`);
    expect(store.lookup('default', ['a'])).toEqual(keys);
  });

  it('takes the paths and the master key from MEMLEDGER_KEY_STORE and MEMLEDGER_MASTER_KEY', async () => {
    const env = {
      MEMLEDGER_KEY_STORE: join(dir(), 'elsewhere', 'keys.db'),
      MEMLEDGER_MASTER_KEY: randomBytes(32).toString('base64'),
    };
    store = openKeyStoreBeside(database(), env, { create: true });
    await store.keysFor('default', ['a']);
    store.close();
    store = undefined;
    expect(existsSync(env.MEMLEDGER_KEY_STORE)).toBe(true);
    expect(existsSync(`${database()}.master-key`)).toBe(false);
    const wrongKey = { ...env, MEMLEDGER_MASTER_KEY: randomBytes(32).toString('hex') };
    expect(
      thrownBy(() => openKeyStoreBeside(database(), wrongKey, { create: true })),
    ).toMatchObject({
      code: 'KEY_STORE_LOCKED',
    });
  });

  it('refuses a key store whose master key file is gone instead of making a new key', () => {
    openKeyStoreBeside(database(), {}, { create: true }).close();
    rmSync(`${database()}.master-key`);
    const error = thrownBy(() => openKeyStoreBeside(database(), {}, { create: true }));
    expect(error).toMatchObject({ code: 'KEY_STORE_MISSING' });
    expect((error as Error).message).toContain(`${database()}.master-key`);
    expect(existsSync(`${database()}.master-key`)).toBe(false);
  });

  it('refuses a missing key store with KEY_STORE_MISSING when create is false', () => {
    expect(thrownBy(() => openKeyStoreBeside(database(), {}, { create: false }))).toMatchObject({
      code: 'KEY_STORE_MISSING',
      message: expect.stringContaining(`${database()}.keys does not exist`) as string,
    });
    expect(readdirSync(dir())).toEqual([]);
  });
});
