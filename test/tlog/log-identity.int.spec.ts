/**
 * The log's identity from the environment: unset gives an unsigned log under a stable default
 * name; a key gives its own name; a name that contradicts the key, a bad key file or a bad
 * witness entry refuses to start, each with its code.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { appConfigFromEnv } from '../../src/http/index.js';
import {
  generateSigner,
  logIdentityFromEnv,
  logIdentityLine,
  writeKeyFile,
} from '../../src/tlog/index.js';
import { SIGNATURE_TYPE } from '../../src/verify/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-identity-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('log identity from the environment', () => {
  it('is unsigned under <host name>/memledger when nothing is set, and says so', async () => {
    const identity = await logIdentityFromEnv({});
    expect(identity).toEqual({ name: `${hostname()}/memledger`, witnesses: [] });
    expect(logIdentityLine(identity)).toMatch(/UNSIGNED \(MEMLEDGER_LOG_KEY is not set\)/);
  });

  it('takes the name of the key, and the witnesses listed', async () => {
    const key = generateSigner('log.example');
    const witness = generateSigner('w.example', SIGNATURE_TYPE.cosignature);
    writeKeyFile(join(dir, 'log.key'), key);
    const identity = await logIdentityFromEnv({
      MEMLEDGER_LOG_KEY: join(dir, 'log.key'),
      MEMLEDGER_LOG_NAME: 'log.example',
      MEMLEDGER_WITNESSES: `${witness.vkey}=http://127.0.0.1:9/w`,
    });
    expect(identity.name).toBe('log.example');
    expect(identity.signer?.vkey).toBe(key.vkey);
    expect(identity.witnesses.map((w) => [w.key.line, w.url])).toEqual([
      [witness.vkey, 'http://127.0.0.1:9/w'],
    ]);
    expect(logIdentityLine(identity)).toBe(
      `verifiable log log.example: checkpoints signed by ${key.vkey}; witnesses w.example (http://127.0.0.1:9/w)`,
    );
  });

  it('refuses a name that contradicts the key, a bad key file and a bad witness', async () => {
    const key = generateSigner('log.example');
    writeKeyFile(join(dir, 'named.key'), key);
    writeFileSync(join(dir, 'open.key'), `${key.privateKeyLine}\n`);
    chmodSync(join(dir, 'open.key'), 0o644);
    const cases: [NodeJS.ProcessEnv, string][] = [
      [
        { MEMLEDGER_LOG_KEY: join(dir, 'named.key'), MEMLEDGER_LOG_NAME: 'other' },
        'LOG_KEY_MALFORMED',
      ],
      [{ MEMLEDGER_LOG_KEY: join(dir, 'missing.key') }, 'LOG_KEY_MISSING'],
      [{ MEMLEDGER_LOG_KEY: join(dir, 'open.key') }, 'LOG_KEY_INSECURE'],
      [{ MEMLEDGER_WITNESSES: 'not-a-witness' }, 'VALIDATION_FAILED'],
      [{ MEMLEDGER_WITNESSES: `${key.vkey}=http://127.0.0.1:9` }, 'VALIDATION_FAILED'],
    ];
    for (const [env, code] of cases) {
      await expect(logIdentityFromEnv(env)).rejects.toMatchObject({ code });
      await expect(appConfigFromEnv(env)).rejects.toMatchObject({ code });
    }
  });
});
