/**
 * Bad input at start-up: the application (started as `npm start` does, in a child process)
 * refuses a master key other than the one its key store was made with (KEY_STORE_LOCKED), and a
 * database holding sealed content whose key store is gone (KEY_STORE_MISSING), with a clear
 * message and nothing written to the database or the key store.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { openMemledger } from '../../src/memory/index.js';
import { openStore, storeConfigFromEnv } from '../../src/store/open-store.js';

jest.setTimeout(90_000);

const root = join(import.meta.dirname, '..', '..');
const child = join(root, 'test', 'support', 'erasure-startup-child.ts');

/** Runs the application with `env` (no other MEMLEDGER_* or EVENTSTORE_URL), until it stops. */
function startApp(env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('MEMLEDGER_') && name !== 'EVENTSTORE_URL') childEnv[name] = value;
  const run = spawnSync(process.execPath, ['--import', 'tsx', child], {
    cwd: root,
    env: { ...childEnv, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The bytes of each file that exists among `paths` (a missing one maps to null). */
const bytesOf = (paths: readonly string[]) =>
  paths.map((p) => (existsSync(p) ? readFileSync(p).toString('base64') : null));

describe('the application at start-up with a key store', () => {
  let dir = '';
  let db = '';
  const keyA = randomBytes(32).toString('hex');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-erasure-startup-'));
    db = join(dir, 'memledger.db');
    // A database with sealed content, its key store made with key A, closed cleanly.
    const store = await openStore(
      storeConfigFromEnv({ MEMLEDGER_DB: db, MEMLEDGER_MASTER_KEY: keyA }),
    );
    const memledger = openMemledger({ store });
    await (await memledger.memory()).recordMessage({ speaker: 'user', content: 'sealed words' });
    await memledger.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files = () => [db, `${db}-wal`, `${db}.keys`, `${db}.keys-wal`, `${db}.master-key`];

  it('refuses a wrong master key with KEY_STORE_LOCKED and writes nothing', () => {
    const before = bytesOf(files());
    const run = startApp({
      MEMLEDGER_DB: db,
      MEMLEDGER_MASTER_KEY: randomBytes(32).toString('hex'),
    });
    expect(run.code).toBe(1);
    expect(run.output).not.toContain('listening');
    expect(run.output).toContain('KEY_STORE_LOCKED');
    expect(run.output).toMatch(/master key [0-9a-f]{16} does not open the key store/);
    expect(run.output).not.toContain(keyA);
    expect(bytesOf(files())).toEqual(before);
  });

  it('refuses a database with sealed content whose key store is missing (KEY_STORE_MISSING), creating none', () => {
    renameSync(`${db}.keys`, `${db}.keys.away`);
    try {
      const before = bytesOf(files());
      const run = startApp({ MEMLEDGER_DB: db, MEMLEDGER_MASTER_KEY: keyA });
      expect(run.code).toBe(1);
      expect(run.output).not.toContain('listening');
      expect(run.output).toContain('KEY_STORE_MISSING');
      expect(run.output).toContain(`${db}.keys`);
      expect(bytesOf(files())).toEqual(before);
      expect(existsSync(`${db}.keys`)).toBe(false);
    } finally {
      renameSync(`${db}.keys.away`, `${db}.keys`);
    }
  });

  it('starts with the master key the key store was made with', () => {
    const run = startApp({ MEMLEDGER_DB: db, MEMLEDGER_MASTER_KEY: keyA });
    expect(run.output).toMatch(/listening http:\/\/127\.0\.0\.1:\d+/);
    expect(run.code).toBe(0);
  });
});
