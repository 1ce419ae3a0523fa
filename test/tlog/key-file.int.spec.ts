/**
 * Key files on a real file system: written 0600 and never replaced; read back with a code for
 * each way a file can be wrong (missing, unreadable, too open, garbled, the other key type).
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryError } from '../../src/core/index.js';
import { loadKeyFile, logKeyFromEnv, writeKeyFile } from '../../src/tlog/key-file.js';
import { generateSigner } from '../../src/tlog/note-signer.js';
import { SIGNATURE_TYPE } from '../../src/verify/index.js';

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return isMemoryError(error) ? error.code : String(error);
  }
  return undefined;
};

describe('key files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one key line with mode 0600 and reads the same key back', () => {
    const signer = generateSigner('log.example');
    const path = join(dir, 'log.key');
    writeKeyFile(path, signer);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${signer.privateKeyLine}\n`);
    expect(loadKeyFile(path, SIGNATURE_TYPE.ed25519).vkey).toBe(signer.vkey);
  });

  it('never replaces an existing file', () => {
    const path = join(dir, 'log.key');
    writeFileSync(path, 'precious');
    expect(codeOf(() => writeKeyFile(path, generateSigner('x')))).toBe('LOG_KEY_EXISTS');
    expect(readFileSync(path, 'utf8')).toBe('precious');
  });

  it('names a missing file, a folder, and a file others may read', () => {
    expect(codeOf(() => loadKeyFile(join(dir, 'nope.key'), 1))).toBe('LOG_KEY_MISSING');
    mkdirSync(join(dir, 'folder'));
    expect(codeOf(() => loadKeyFile(join(dir, 'folder'), 1))).toBe('LOG_KEY_UNREADABLE');
    const path = join(dir, 'open.key');
    writeKeyFile(path, generateSigner('x'));
    chmodSync(path, 0o644);
    expect(codeOf(() => loadKeyFile(path, 1))).toBe('LOG_KEY_INSECURE');
    expect(() => loadKeyFile(path, 1)).toThrow('has mode 644');
  });

  it('refuses a file it cannot read', () => {
    if (process.getuid?.() === 0) {
      console.warn('skipped: running as root, which reads any file whatever its mode');
      return;
    }
    const path = join(dir, 'locked.key');
    writeKeyFile(path, generateSigner('x'));
    chmodSync(path, 0o000);
    expect(codeOf(() => loadKeyFile(path, 1))).toBe('LOG_KEY_UNREADABLE');
  });

  it.each([
    ['an empty file', ''],
    ['two keys', `${generateSigner('a').privateKeyLine}\n${generateSigner('b').privateKeyLine}\n`],
    ['a verifier key instead of a private one', `${generateSigner('a').vkey}\n`],
    ['a truncated key', `${generateSigner('a').privateKeyLine.slice(0, -4)}\n`],
    ['a witness key', `${generateSigner('a', SIGNATURE_TYPE.cosignature).privateKeyLine}\n`],
  ])('refuses %s as a log key', (_what, text) => {
    const path = join(dir, 'bad.key');
    writeFileSync(path, text, { mode: 0o600 });
    expect(codeOf(() => loadKeyFile(path, SIGNATURE_TYPE.ed25519))).toBe('LOG_KEY_MALFORMED');
  });

  it('reads MEMLEDGER_LOG_KEY: none when unset, the key when set, an error when the file is bad', () => {
    expect(logKeyFromEnv({})).toBeUndefined();
    expect(logKeyFromEnv({ MEMLEDGER_LOG_KEY: ' ' })).toBeUndefined();
    const signer = generateSigner('log.example');
    const path = join(dir, 'log.key');
    writeKeyFile(path, signer);
    expect(logKeyFromEnv({ MEMLEDGER_LOG_KEY: path })?.vkey).toBe(signer.vkey);
    expect(codeOf(() => logKeyFromEnv({ MEMLEDGER_LOG_KEY: join(dir, 'gone.key') }))).toBe(
      'LOG_KEY_MISSING',
    );
  });
});
