/**
 * Byte helpers over `Uint8Array` (no `Buffer`: this module runs in browsers): strict standard
 * base64 (RFC 4648 §4, padded, canonical), lowercase hex, UTF-8 and constant-size comparisons.
 */
import { VerifyError } from './verify-error.js';

/** Size of a SHA-256 hash: every tree hash, leaf hash and root. */
export const HASH_BYTES = 32;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The bytes of a standard, padded base64 text, refusing anything else: whitespace, the URL-safe
 * alphabet, missing padding, or non-zero spare bits (a second spelling of the same bytes).
 * `what` names the field in the error.
 */
export function fromBase64(text: string, what: string): Uint8Array {
  if (!BASE64.test(text)) {
    throw new VerifyError('ENCODING_INVALID', `${what} is not standard padded base64.`, { what });
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (toBase64(bytes) !== text) {
    throw new VerifyError('ENCODING_INVALID', `${what} is not canonical base64.`, { what });
  }
  return bytes;
}

/** A 32-byte hash from base64; `what` names the field in the error. */
export function hashFromBase64(text: string, what: string): Uint8Array {
  return checkHash(fromBase64(text, what), what);
}

/** `hash` itself when it is 32 bytes, else `ENCODING_INVALID` naming `what`. */
export function checkHash(hash: Uint8Array, what: string): Uint8Array {
  if (!isBytes(hash) || hash.length !== HASH_BYTES) {
    const length = isBytes(hash) ? `${hash.length} bytes` : typeof hash;
    throw new VerifyError(
      'ENCODING_INVALID',
      `${what} must be a ${HASH_BYTES}-byte hash; it is ${length}.`,
      { what },
    );
  }
  return hash;
}

/**
 * True for a `Uint8Array` (a Node `Buffer` too), from any realm: `instanceof` fails for bytes
 * made in another realm (an iframe, a worker, a test sandbox).
 */
export function isBytes(value: unknown): value is Uint8Array {
  return Object.prototype.toString.call(value) === '[object Uint8Array]';
}

/** Lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** UTF-8 bytes of a text. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The text of UTF-8 bytes, refusing invalid UTF-8; `what` names the field in the error. */
export function fromUtf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new VerifyError('ENCODING_INVALID', `${what} is not valid UTF-8.`, { what });
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed` (ES2024) where the engine has it: faster than the pattern. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;

/** True when a text holds half of a UTF-16 surrogate pair: no Unicode text, no UTF-8. */
export function hasLoneSurrogate(text: string): boolean {
  return isWellFormed ? !isWellFormed.call(text) : LONE_SURROGATE.test(text);
}

/** `bytes` as WebCrypto takes them: backed by an `ArrayBuffer` (copied when shared memory). */
export function bufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

/** The bytes of all parts, in order. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** True when both hold the same bytes (compared in full, whatever differs first). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
