/**
 * RFC 9162 hashing on the server, synchronous (node:crypto): the append path hashes inside its
 * transaction, where an await would let another writer in.
 */
import * as crypto from 'node:crypto';

/**
 * SHA-256 of one input (a string hashed as its UTF-8): the one-shot `crypto.hash` where Node has
 * it (20.12 and later; it makes no Hash object and, for a string, no Buffer), else a Hash object.
 */
const sha256: (data: Uint8Array | string) => Buffer =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'buffer')
    : (data) => crypto.createHash('sha256').update(data).digest();

/** The hash of a leaf: `SHA-256(0x00 || leaf bytes)`. */
export function leafHashOf(leaf: Uint8Array): Buffer {
  const prefixed = Buffer.allocUnsafe(leaf.length + 1);
  prefixed[0] = 0x00;
  prefixed.set(leaf, 1);
  return sha256(prefixed);
}

/**
 * The hash of a leaf given as its text: `SHA-256(0x00 || UTF-8 of the text)` (U+0000 is the byte
 * 0x00 in UTF-8). The text must be well-formed Unicode, as canonical JSON is.
 */
export function leafHashOfText(leaf: string): Buffer {
  return sha256(`\u0000${leaf}`);
}

/** The hash of an interior node: `SHA-256(0x01 || left || right)`. */
export function nodeHashOf(left: Uint8Array, right: Uint8Array): Buffer {
  const joined = Buffer.allocUnsafe(1 + left.length + right.length);
  joined[0] = 0x01;
  joined.set(left, 1);
  joined.set(right, 1 + left.length);
  return sha256(joined);
}

/** The root of the empty tree: `SHA-256()` of no bytes. */
export function emptyTreeRoot(): Buffer {
  return sha256(new Uint8Array(0));
}
