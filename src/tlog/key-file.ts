/**
 * Key files: one private key line (note-signer.ts) and a newline, mode 0600. Writing never
 * replaces a file; reading refuses a file others may read, and says which of missing,
 * unreadable, too open or garbled it is, with its code.
 */
import { closeSync, fstatSync, openSync, readFileSync, writeSync, constants } from 'node:fs';
import { MemoryError } from '../core/index.js';
import { SIGNATURE_TYPE, type SignatureType } from '../verify/index.js';
import { parsePrivateKeyLine, type NoteSigner } from './note-signer.js';

/** The largest key file read: a key line is about 100 bytes. */
const MAX_KEY_FILE_BYTES = 4096;

/** Writes `signer`'s private key to `path` with mode 0600; `LOG_KEY_EXISTS` if the path exists. */
export function writeKeyFile(path: string, signer: NoteSigner): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EEXIST') {
      throw new MemoryError(
        'LOG_KEY_EXISTS',
        `Key file ${path} already exists; memledger never replaces a key.`,
        {
          details: { path },
        },
      );
    }
    throw new MemoryError(
      'LOG_KEY_UNREADABLE',
      `Cannot create key file ${path}: ${(error as Error).message}.`,
      {
        details: { path },
        cause: error,
      },
    );
  }
  try {
    writeSync(fd, `${signer.privateKeyLine}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * The signer of the key file at `path`, of type `expected`. Throws `LOG_KEY_MISSING` (no file),
 * `LOG_KEY_UNREADABLE` (not a readable regular file), `LOG_KEY_INSECURE` (group or others may
 * read or write it: chmod 600) or `LOG_KEY_MALFORMED` (not one private key line).
 */
export function loadKeyFile(path: string, expected: SignatureType): NoteSigner {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') {
      throw new MemoryError(
        'LOG_KEY_MISSING',
        `Key file ${path} does not exist (create one with memledger keygen).`,
        {
          details: { path },
        },
      );
    }
    throw unreadable(path, (error as Error).message, error);
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw unreadable(path, 'it is not a regular file');
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new MemoryError(
        'LOG_KEY_INSECURE',
        `Key file ${path} has mode ${(stat.mode & 0o777).toString(8)}; a private key must be readable by its owner only (chmod 600).`,
        { details: { path, mode: stat.mode & 0o777 } },
      );
    }
    if (stat.size > MAX_KEY_FILE_BYTES)
      throw malformedFile(path, `it is ${stat.size} bytes, not one key line`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const lines = text.split('\n').filter((line) => line.trim().length > 0);
  if (lines.length !== 1)
    throw malformedFile(path, `it holds ${lines.length} lines, not one key line`);
  try {
    return parsePrivateKeyLine(lines[0]!.trim(), expected);
  } catch (error) {
    throw malformedFile(
      path,
      (error as Error).message.replace(/^The private key is malformed: /, '').replace(/\.$/, ''),
      error,
    );
  }
}

function unreadable(path: string, why: string, cause?: unknown): MemoryError {
  return new MemoryError('LOG_KEY_UNREADABLE', `Cannot read key file ${path}: ${why}.`, {
    details: { path },
    ...(cause === undefined ? {} : { cause }),
  });
}

function malformedFile(path: string, why: string, cause?: unknown): MemoryError {
  return new MemoryError(
    'LOG_KEY_MALFORMED',
    `Key file ${path} is not a memledger private key: ${why}.`,
    {
      details: { path },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/**
 * The log's signing key named by `MEMLEDGER_LOG_KEY` (a key file path), or undefined when it is
 * not set: the app then builds the tree and serves unsigned roots and proofs, and says so. A
 * set but bad file throws as {@link loadKeyFile} does: a server must not start unsigned by
 * mistake.
 */
export function logKeyFromEnv(env: NodeJS.ProcessEnv = process.env): NoteSigner | undefined {
  const path = env.MEMLEDGER_LOG_KEY?.trim();
  if (path === undefined || path === '') return undefined;
  return loadKeyFile(path, SIGNATURE_TYPE.ed25519);
}
