/**
 * RFC 9162 §2.1 written out as its recursive definitions, straight from the text: MTH, PATH and
 * PROOF over a list of leaf hashes. Deliberately naive (it rehashes everything), and sharing no
 * code with src/tlog or src/verify, so the tests check those against the RFC itself.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** H(0x00 || leaf). */
export const refLeafHash = (leaf: Uint8Array): Buffer => sha256(Buffer.from([0]), leaf);

/** H(0x01 || left || right). */
export const refNodeHash = (left: Uint8Array, right: Uint8Array): Buffer =>
  sha256(Buffer.from([1]), left, right);

/** The largest power of two smaller than n (n > 1). */
function k(n: number): number {
  let p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

/** MTH(D[n]) over leaf hashes. */
export function refRoot(hashes: readonly Buffer[]): Buffer {
  if (hashes.length === 0) return sha256();
  if (hashes.length === 1) return hashes[0]!;
  const split = k(hashes.length);
  return refNodeHash(refRoot(hashes.slice(0, split)), refRoot(hashes.slice(split)));
}

/** PATH(m, D[n]). */
export function refPath(m: number, hashes: readonly Buffer[]): Buffer[] {
  const n = hashes.length;
  if (n <= 1) return [];
  const split = k(n);
  return m < split
    ? [...refPath(m, hashes.slice(0, split)), refRoot(hashes.slice(split))]
    : [...refPath(m - split, hashes.slice(split)), refRoot(hashes.slice(0, split))];
}

/** SUBPROOF(m, D[n], b). */
function subproof(m: number, hashes: readonly Buffer[], b: boolean): Buffer[] {
  const n = hashes.length;
  if (m === n) return b ? [] : [refRoot(hashes)];
  const split = k(n);
  return m <= split
    ? [...subproof(m, hashes.slice(0, split), b), refRoot(hashes.slice(split))]
    : [...subproof(m - split, hashes.slice(split), false), refRoot(hashes.slice(0, split))];
}

/** PROOF(m, D[n]) for 0 < m <= n. */
export function refProof(m: number, hashes: readonly Buffer[]): Buffer[] {
  return subproof(m, hashes, true);
}

/** Leaf hashes of `n` distinct leaves (the bytes of "leaf <i>" prefixed with a tag). */
export function sampleLeafHashes(n: number, tag = 'a'): Buffer[] {
  return Array.from({ length: n }, (_, i) => refLeafHash(Buffer.from(`${tag}:leaf ${i}`)));
}
