/**
 * Content sealing: one text field encrypted with its item's data key, AES-256-GCM with a
 * synthetic IV. The IV is derived from the key, the AAD and the plaintext, so sealing the same
 * item with the same content twice gives the same string (the store's idempotency check
 * compares stored content), while two different plaintexts under one key get different IVs
 * (except with probability 2^-96), which is what GCM needs. Only node:crypto primitives.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { MemoryError } from '../core/index.js';
import { KEY_BYTES } from './master-key.js';

const VERSION_PREFIX = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `plaintext` sealed under `key` (a 32-byte data key) and bound to `aad` (say
 * `memory/item/field`): `"v1." + base64url(iv | ciphertext | tag)`. Deterministic.
 */
export function sealText(key: Buffer, plaintext: string, aad: string): string {
  checkKey(key, aad);
  // UTF-8 cannot carry a lone surrogate: it would come back as U+FFFD, a different text.
  if (LONE_SURROGATE.test(plaintext))
    throw new MemoryError(
      'VALIDATION_FAILED',
      `The text sealed for ${aad} holds a lone surrogate; it is not valid Unicode.`,
      { details: { aad } },
    );
  const iv = createHmac('sha256', key)
    .update(`${aad}\0${plaintext}`, 'utf8')
    .digest()
    .subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/**
 * The text {@link sealText} sealed under `key` with the same `aad`. A malformed string, another
 * key or another aad throws `EVENT_DECODE_FAILED` naming the aad.
 */
export function openText(key: Buffer, sealed: string, aad: string): string {
  checkKey(key, aad);
  const encoded = sealed.startsWith(VERSION_PREFIX) ? sealed.slice(VERSION_PREFIX.length) : '';
  const bytes = BASE64URL.test(encoded) ? Buffer.from(encoded, 'base64url') : Buffer.alloc(0);
  if (bytes.length < IV_BYTES + TAG_BYTES) throw decodeFailed(aad, 'is not a v1 sealed text');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch (error) {
    throw decodeFailed(
      aad,
      'does not open with its key (altered, or sealed for another item)',
      error,
    );
  }
}

function checkKey(key: Buffer, aad: string): void {
  if (key.length !== KEY_BYTES)
    throw new MemoryError(
      'VALIDATION_FAILED',
      `A data key is ${KEY_BYTES} bytes; the key given for ${aad} has ${key.length}.`,
      { details: { aad, length: key.length } },
    );
}

function decodeFailed(aad: string, why: string, cause?: unknown): MemoryError {
  return new MemoryError('EVENT_DECODE_FAILED', `The sealed text of ${aad} ${why}.`, {
    details: { aad },
    ...(cause === undefined ? {} : { cause }),
  });
}
