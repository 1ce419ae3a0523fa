/**
 * The master key: the one secret that wraps every per-item data key in the key store. It comes
 * from `MEMLEDGER_MASTER_KEY` or from a key file created on first start, readable by its owner
 * only. Whoever holds it and the key store can read every item not yet erased; an erased item
 * stays unreadable whoever holds it, since its data key is gone.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { MemoryError } from '../core/index.js';

/** Bytes of a master key and of a data key (AES-256). */
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Wraps and unwraps data keys. The embedded implementation holds the key bytes in a closure; a
 * KMS-backed MasterKey wraps and unwraps the same way (a remote encrypt/decrypt with the same
 * `aad` as encryption context), so the key store never needs the master key's bytes.
 */
export interface MasterKey {
  /** Encrypts `dataKey` bound to `aad`: AES-256-GCM, layout iv (12) | ciphertext | tag (16). */
  wrap(dataKey: Buffer, aad: string): Buffer;
  /** The data key `wrap` sealed with the same `aad`; `KEY_STORE_LOCKED` when it does not open. */
  unwrap(wrapped: Buffer, aad: string): Buffer;
  /** A short public id of the key (16 hex digits), for logs; reveals nothing of the key. */
  readonly fingerprint: string;
}

/** Options of {@link loadMasterKey}. */
export interface LoadMasterKeyOptions {
  /** The value of `MEMLEDGER_MASTER_KEY`; when defined it wins over the key file. */
  readonly env?: string | undefined;
  /** The key file read (or created) when `env` is undefined. */
  readonly keyFile: string;
  /** Create the key file with a fresh random key when it is missing. */
  readonly create: boolean;
}

/**
 * The master key from `env` (32 bytes as base64 or 64 hex digits) or else from `keyFile`.
 * Throws `KEY_STORE_LOCKED` for a malformed key or a key file others may read, and
 * `KEY_STORE_MISSING` for a missing key file when `create` is false. Never echoes the key.
 */
export function loadMasterKey(options: LoadMasterKeyOptions): MasterKey {
  if (options.env !== undefined) return masterKeyFromBytes(parseEnvKey(options.env));
  return masterKeyFromBytes(readOrCreateKeyFile(options.keyFile, options.create));
}

/** A {@link MasterKey} over 32 key bytes (copied: the caller may wipe its buffer). */
export function masterKeyFromBytes(bytes: Buffer): MasterKey {
  if (bytes.length !== KEY_BYTES)
    throw new MemoryError(
      'KEY_STORE_LOCKED',
      `A master key is ${KEY_BYTES} bytes; got ${bytes.length}.`,
    );
  // Buffer.alloc, not a pooled buffer: the key must not share a slab other code can read.
  const key = Buffer.alloc(KEY_BYTES);
  bytes.copy(key);
  const fingerprint = createHmac('sha256', key)
    .update('memledger master key fingerprint')
    .digest('hex')
    .slice(0, 16);
  return Object.freeze({
    fingerprint,
    wrap(dataKey: Buffer, aad: string): Buffer {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]);
    },
    unwrap(wrapped: Buffer, aad: string): Buffer {
      try {
        if (wrapped.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
        const decipher = createDecipheriv('aes-256-gcm', key, wrapped.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(wrapped.subarray(wrapped.length - TAG_BYTES));
        const body = wrapped.subarray(IV_BYTES, wrapped.length - TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]);
      } catch (error) {
        throw new MemoryError(
          'KEY_STORE_LOCKED',
          `The master key ${fingerprint} does not open the wrapped key for ${aad}.`,
          { details: { aad, fingerprint }, cause: error },
        );
      }
    },
  });
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 digits and one '=' of padding; base64url spelling is accepted too.
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

function parseEnvKey(value: string): Buffer {
  const text = value.trim();
  if (HEX_KEY.test(text)) return Buffer.from(text, 'hex');
  const bytes = BASE64_KEY.test(text) ? decodeBase64(text) : undefined;
  if (bytes?.length === KEY_BYTES) return bytes;
  // The value is a secret: the message says what was expected and its length, never its text.
  throw new MemoryError(
    'KEY_STORE_LOCKED',
    `MEMLEDGER_MASTER_KEY must be ${KEY_BYTES} bytes as base64 (44 characters) or 64 hex digits; ` +
      `got ${text.length} characters that are neither.`,
    { details: { variable: 'MEMLEDGER_MASTER_KEY', length: text.length } },
  );
}

function decodeBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function readOrCreateKeyFile(path: string, create: boolean): Buffer {
  const existing = readKeyFile(path);
  if (existing) return existing;
  if (!create)
    throw new MemoryError(
      'KEY_STORE_MISSING',
      `The master key file ${path} does not exist; restore it from a backup or set MEMLEDGER_MASTER_KEY.`,
      { details: { path } },
    );
  try {
    createKeyFile(path);
  } catch (error) {
    throw new MemoryError(
      'KEY_STORE_MISSING',
      `The master key file ${path} cannot be created (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      { details: { path }, cause: error },
    );
  }
  // Read back what is on disk: when another process won the race to create it, its key is the key.
  const created = readKeyFile(path);
  if (!created) throw new MemoryError('KEY_STORE_MISSING', `The master key file ${path} vanished.`);
  return created;
}

/** The key in `path`, or undefined when there is no such file. */
function readKeyFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MemoryError('KEY_STORE_LOCKED', `The master key file ${path} cannot be read.`, {
      details: { path },
      cause: error,
    });
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    // POSIX permissions mean nothing on Windows, where the ACL of the folder protects the file.
    if (process.platform !== 'win32' && (mode & 0o077) !== 0)
      throw new MemoryError(
        'KEY_STORE_LOCKED',
        `The master key file ${path} is readable by others (mode ${mode.toString(8)}, expected 600); ` +
          `run chmod 600 ${path} and start again.`,
        { details: { path, mode: mode.toString(8) } },
      );
    const text = readFileSync(fd, 'utf8').trim();
    const bytes = BASE64_KEY.test(text) ? decodeBase64(text) : undefined;
    if (bytes?.length !== KEY_BYTES)
      throw new MemoryError(
        'KEY_STORE_LOCKED',
        `The master key file ${path} does not hold ${KEY_BYTES} bytes as base64.`,
        { details: { path } },
      );
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a fresh key to a private temporary file, syncs it, then links it into place: the link
 * fails with EEXIST when another process created the file first, and a reader never sees a
 * half-written key file (as it could between an exclusive create and the write).
 */
function createKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeSync(fd, `${randomBytes(KEY_BYTES).toString('base64')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  syncDirectory(dirname(path));
}

/** Makes the new directory entry durable, so a machine crash does not lose the key file. */
function syncDirectory(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(path, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
