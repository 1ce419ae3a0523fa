/** The master key: from MEMLEDGER_MASTER_KEY or a private key file, and its wrapping of keys. */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadMasterKey } from '../../src/keys/index.js';
import { thrownBy, useTempDir } from './key-files.js';

describe('loadMasterKey', () => {
  const dir = useTempDir();
  const keyFile = () => join(dir(), 'memory.db.master-key');

  it('creates a missing key file with mode 0600 holding 32 bytes as base64, then reads the same key', () => {
    const created = loadMasterKey({ keyFile: keyFile(), create: true });
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(keyFile(), 'utf8').trim(), 'base64')).toHaveLength(32);
    const again = loadMasterKey({ keyFile: keyFile(), create: false });
    expect(again.fingerprint).toBe(created.fingerprint);
    const dataKey = randomBytes(32);
    expect(again.unwrap(created.wrap(dataKey, 'm/a'), 'm/a')).toEqual(dataKey);
    // The temporary file the key was written to before it was linked into place is gone.
    expect(readdirSync(dir())).toEqual(['memory.db.master-key']);
  });

  it('refuses a missing key file with KEY_STORE_MISSING naming it when create is false', () => {
    expect(thrownBy(() => loadMasterKey({ keyFile: keyFile(), create: false }))).toMatchObject({
      code: 'KEY_STORE_MISSING',
      message: expect.stringContaining(keyFile()) as string,
    });
    expect(existsSync(keyFile())).toBe(false);
  });

  it('refuses a key file others may read (0644) with KEY_STORE_LOCKED naming it and chmod 600', () => {
    loadMasterKey({ keyFile: keyFile(), create: true });
    chmodSync(keyFile(), 0o644);
    const error = thrownBy(() => loadMasterKey({ keyFile: keyFile(), create: true }));
    expect(error).toMatchObject({ code: 'KEY_STORE_LOCKED' });
    expect((error as Error).message).toContain(keyFile());
    expect((error as Error).message).toContain('chmod 600');
  });

  it('refuses a key file that does not hold 32 bytes as base64', () => {
    writeFileSync(keyFile(), 'not a key\n', { mode: 0o600 });
    expect(thrownBy(() => loadMasterKey({ keyFile: keyFile(), create: true }))).toMatchObject({
      code: 'KEY_STORE_LOCKED',
    });
  });

  it('takes the key from the environment as base64 or as 64 hex digits, ignoring the key file', () => {
    const bytes = randomBytes(32);
    const fromBase64 = loadMasterKey({
      env: bytes.toString('base64'),
      keyFile: keyFile(),
      create: true,
    });
    const fromHex = loadMasterKey({ env: bytes.toString('hex'), keyFile: keyFile(), create: true });
    expect(fromHex.fingerprint).toBe(fromBase64.fingerprint);
    expect(existsSync(keyFile())).toBe(false);
  });

  it('refuses an environment key of the wrong length without echoing it', () => {
    const short = randomBytes(16).toString('base64');
    for (const env of [short, randomBytes(31).toString('hex'), '', 'x'.repeat(44)]) {
      const error = thrownBy(() => loadMasterKey({ env, keyFile: keyFile(), create: true }));
      expect(error).toMatchObject({ code: 'KEY_STORE_LOCKED' });
      expect((error as Error).message).toContain('MEMLEDGER_MASTER_KEY');
      expect((error as Error).message).toContain('base64');
      if (env.length > 0) expect((error as Error).message).not.toContain(env);
    }
  });

  it('unwraps only with the aad it wrapped with and the same key, else KEY_STORE_LOCKED', () => {
    const key = loadMasterKey({
      env: randomBytes(32).toString('base64'),
      keyFile: '',
      create: false,
    });
    const other = loadMasterKey({
      env: randomBytes(32).toString('base64'),
      keyFile: '',
      create: false,
    });
    const wrapped = key.wrap(randomBytes(32), 'm/a');
    expect(wrapped).toHaveLength(12 + 32 + 16);
    expect(thrownBy(() => key.unwrap(wrapped, 'm/b'))).toMatchObject({ code: 'KEY_STORE_LOCKED' });
    expect(thrownBy(() => other.unwrap(wrapped, 'm/a'))).toMatchObject({
      code: 'KEY_STORE_LOCKED',
    });
    expect(other.fingerprint).not.toBe(key.fingerprint);
  });
});
