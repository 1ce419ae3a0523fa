/**
 * RFC 9162 hashing on the server, synchronous (node:crypto): the append path hashes inside its
 * transaction, where an await would let another writer in.
 */
import { createHash } from 'node:crypto';

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** The hash of a leaf: `SHA-256(0x00 || leaf bytes)`. */
export function leafHashOf(leaf: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(leaf).digest();
}

/** The hash of an interior node: `SHA-256(0x01 || left || right)`. */
export function nodeHashOf(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The root of the empty tree: `SHA-256()` of no bytes. */
export function emptyTreeRoot(): Buffer {
  return createHash('sha256').digest();
}
