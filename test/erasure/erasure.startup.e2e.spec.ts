/**
 * Bad input at start-up: the application (started as `npm start` does, in a child process)
 * refuses a master key other than the one its key store was made with (KEY_STORE_LOCKED), and a
 * database holding sealed content whose key store is gone (KEY_STORE_MISSING), with a clear
 * message and nothing written to the database or the key store.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { openMemledger } from '../../src/memory/index.js';
import { openStore, storeConfigFromEnv } from '../../src/store/open-store.js';

jest.setTimeout(90_000);

const root = join(import.meta.dirname, '..', '..');
const child = join(root, 'test', 'support', 'erasure-startup-child.ts');

/** Runs the application with `env` (no other MEMLEDGER_* or EVENTSTORE_URL), until it stops. */
function startApp(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('MEMLEDGER_') && name !== 'EVENTSTORE_URL') childEnv[name] = value;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', child],
      { cwd: root, env: { ...childEnv, ...env }, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The bytes of each file that exists among `paths` (a missing one maps to null). */
const bytesOf = (paths: readonly string[]) =>
  paths.map((p) => (existsSync(p) ? readFileSync(p).toString('base64') : null));

/** The files of a database at `db`: the event file, the key store, the master key file. */
const filesOf = (db: string) => [
  db,
  `${db}-wal`,
  `${db}.keys`,
  `${db}.keys-wal`,
  `${db}.master-key`,
];

describe('the application at start-up with a key store', () => {
  let dir = '';
  const keyA = randomBytes(32).toString('hex');
  const db = (name: string) => join(dir, name, 'memledger.db');
  const before = new Map<string, (string | null)[]>();
  const runs = new Map<string, { code: number; output: string }>();
  // One database with sealed content, its key store made with key A and closed cleanly, copied
  // three times; the three starts run side by side (each is a Node process loading the app).
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-erasure-startup-'));
    mkdirSync(join(dir, 'original'));
    const store = await openStore(
      storeConfigFromEnv({ MEMLEDGER_DB: db('original'), MEMLEDGER_MASTER_KEY: keyA }),
    );
    const memledger = openMemledger({ store });
    await (await memledger.memory()).recordMessage({ speaker: 'user', content: 'sealed words' });
    await memledger.close();
    for (const name of ['wrong-key', 'no-key-store', 'right-key']) {
      mkdirSync(join(dir, name));
      for (const suffix of ['', '.keys'])
        if (name !== 'no-key-store' || suffix !== '.keys')
          copyFileSync(`${db('original')}${suffix}`, `${db(name)}${suffix}`);
      before.set(name, bytesOf(filesOf(db(name))));
    }
    const wrongKey = randomBytes(32).toString('hex');
    const [wrong, missing, right] = await Promise.all([
      startApp({ MEMLEDGER_DB: db('wrong-key'), MEMLEDGER_MASTER_KEY: wrongKey }),
      startApp({ MEMLEDGER_DB: db('no-key-store'), MEMLEDGER_MASTER_KEY: keyA }),
      startApp({ MEMLEDGER_DB: db('right-key'), MEMLEDGER_MASTER_KEY: keyA }),
    ]);
    runs.set('wrong-key', wrong).set('no-key-store', missing).set('right-key', right);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a wrong master key with KEY_STORE_LOCKED and writes nothing', () => {
    const run = runs.get('wrong-key')!;
    expect(run.code).toBe(1);
    expect(run.output).not.toContain('listening');
    expect(run.output).toContain('KEY_STORE_LOCKED');
    expect(run.output).toMatch(/master key [0-9a-f]{16} does not open the key store/);
    expect(run.output).not.toContain(keyA);
    expect(bytesOf(filesOf(db('wrong-key')))).toEqual(before.get('wrong-key'));
  });

  it('refuses a database with sealed content whose key store is missing (KEY_STORE_MISSING), creating none', () => {
    const run = runs.get('no-key-store')!;
    expect(run.code).toBe(1);
    expect(run.output).not.toContain('listening');
    expect(run.output).toContain('KEY_STORE_MISSING');
    expect(run.output).toContain(`${db('no-key-store')}.keys`);
    expect(bytesOf(filesOf(db('no-key-store')))).toEqual(before.get('no-key-store'));
    expect(existsSync(`${db('no-key-store')}.keys`)).toBe(false);
  });

  it('starts with the master key the key store was made with', () => {
    const run = runs.get('right-key')!;
    expect(run.output).toMatch(/listening http:\/\/127\.0\.0\.1:\d+/);
    expect(run.code).toBe(0);
  });
});
