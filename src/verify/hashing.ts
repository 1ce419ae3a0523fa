/**
 * RFC 9162 §2.1.1 hashing with SHA-256 through WebCrypto (`globalThis.crypto.subtle`, present
 * in Node 20 and every current browser): leaf hash `H(0x00 || leaf)`, interior node
 * `H(0x01 || left || right)`, and the Merkle Tree Hash of a list of leaf hashes.
 */
import { bufferSource, checkHash, concatBytes } from './bytes.js';

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/** SHA-256 of `bytes`. */
export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bufferSource(bytes)));
}

/** The hash of a leaf: `SHA-256(0x00 || leaf bytes)`. */
export function leafHash(leaf: Uint8Array): Promise<Uint8Array> {
  return sha256(concatBytes(LEAF_PREFIX, leaf));
}

/** The hash of an interior node: `SHA-256(0x01 || left || right)`. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  return sha256(concatBytes(NODE_PREFIX, left, right));
}

/** `SHA-256()` of no bytes: the root of the empty tree (RFC 9162 §2.1.1). */
export const EMPTY_ROOT: Uint8Array = new Uint8Array([
  0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
  0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
]);

/** The root of the empty tree, `SHA-256()` (a copy: the caller may change it). */
export function emptyRoot(): Uint8Array {
  return EMPTY_ROOT.slice();
}

/**
 * The Merkle Tree Hash (RFC 9162 §2.1.1) of the leaves whose hashes are given, in order. Each
 * complete subtree is merged as soon as its right half is done, so the stack holds the perfect
 * subtrees the size decomposes into (largest first); folding them from the right is exactly the
 * RFC's split at the largest power of two below n.
 */
export async function rootFromLeafHashes(hashes: readonly Uint8Array[]): Promise<Uint8Array> {
  if (hashes.length === 0) return emptyRoot();
  const stack: { level: number; hash: Uint8Array }[] = [];
  for (const [index, hash] of hashes.entries()) {
    let top = { level: 0, hash: checkHash(hash, `leaf hash ${index}`) };
    while (stack.length > 0 && stack[stack.length - 1]!.level === top.level) {
      const left = stack.pop()!;
      top = { level: top.level + 1, hash: await nodeHash(left.hash, top.hash) };
    }
    stack.push(top);
  }
  let root = stack.pop()!.hash;
  while (stack.length > 0) root = await nodeHash(stack.pop()!.hash, root);
  return root;
}
