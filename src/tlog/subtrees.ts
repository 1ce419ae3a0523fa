/**
 * Roots and proofs of a Merkle tree (RFC 9162 §2.1) at any size, read from its stored complete
 * subtrees: node (level k, index j) is the root of leaves [j * 2^k, (j + 1) * 2^k), level 0
 * being the leaf hashes. Every range the RFC's recursion names is a run of at most log2(n)
 * such nodes, so a root reads O(log n) nodes and a proof O(log² n) at worst; the log itself is
 * never read or rehashed. Pure over a synchronous {@link SubtreeSource}.
 */
import { MemoryError } from '../core/index.js';
import { emptyTreeRoot, nodeHashOf } from './tree-hash.js';

/** Where complete subtrees are read from. */
export interface SubtreeSource {
  /**
   * The hash of the complete subtree at `level` (0: a leaf hash) and `index`. Throws when the
   * tree does not hold it (the subtree is not complete yet, or its row is missing).
   */
  node(level: number, index: number): Buffer;
}

/** The largest power of two strictly below `n` (n >= 2): where RFC 9162 splits a tree of n. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The level of the power of two `p`. */
function levelOf(p: number): number {
  let level = 0;
  for (let q = p; q > 1; q /= 2) level++;
  return level;
}

/**
 * The Merkle Tree Hash of leaves [start, start + size), size >= 1, for a range the RFC's
 * recursion produces (start a multiple of the largest power of two <= size): the complete
 * subtrees the size decomposes into, folded from the right.
 */
export function rangeRoot(source: SubtreeSource, start: number, size: number): Buffer {
  const parts: Buffer[] = [];
  let at = start;
  let rest = size;
  while (rest > 0) {
    let p = 1;
    while (p * 2 <= rest) p *= 2;
    parts.push(source.node(levelOf(p), at / p));
    at += p;
    rest -= p;
  }
  let root = parts.pop()!;
  while (parts.length > 0) root = nodeHashOf(parts.pop()!, root);
  return root;
}

/** The root of the tree of the first `size` leaves (`SHA-256()` for 0). */
export function treeRoot(source: SubtreeSource, size: number): Buffer {
  checkCount(size, 'size');
  return size === 0 ? emptyTreeRoot() : rangeRoot(source, 0, size);
}

/**
 * The inclusion path of leaf `index` in the tree of `size` leaves (RFC 9162 §2.1.3.1
 * `PATH(m, D[n])`), from the leaf up. `VALIDATION_FAILED` unless 0 <= index < size.
 */
export function inclusionPath(source: SubtreeSource, index: number, size: number): Buffer[] {
  checkCount(size, 'size');
  checkCount(index, 'seq');
  if (index >= size) {
    throw invalid(
      'seq',
      `seq ${index} is not in a tree of ${size} leaves (seq must be below size)`,
    );
  }
  const path: Buffer[] = [];
  let start = 0;
  let n = size;
  let m = index;
  while (n > 1) {
    const k = splitPoint(n);
    if (m < k) {
      path.push(rangeRoot(source, start + k, n - k));
      n = k;
    } else {
      path.push(source.node(levelOf(k), start / k));
      m -= k;
      start += k;
      n -= k;
    }
  }
  return path.reverse();
}

/**
 * The consistency path from the tree of `from` leaves to the tree of `to` leaves (RFC 9162
 * §2.1.4.1 `PROOF(m, D[n])`); empty when `from` is 0 or equals `to`.
 * `VALIDATION_FAILED` unless 0 <= from <= to.
 */
export function consistencyPath(source: SubtreeSource, from: number, to: number): Buffer[] {
  checkCount(from, 'from');
  checkCount(to, 'to');
  if (from > to) throw invalid('from', `from ${from} is past to ${to} (a tree only grows)`);
  if (from === 0 || from === to) return [];
  const path: Buffer[] = [];
  let start = 0;
  let m = from;
  let n = to;
  let complete = true;
  // SUBPROOF(m, D[n], b) top-down; each level's hash comes after the deeper ones, hence reverse.
  while (m !== n) {
    const k = splitPoint(n);
    if (m <= k) {
      path.push(rangeRoot(source, start + k, n - k));
      n = k;
    } else {
      path.push(source.node(levelOf(k), start / k));
      m -= k;
      start += k;
      n -= k;
      complete = false;
    }
  }
  if (!complete) path.push(rangeRoot(source, start, n));
  return path.reverse();
}

function checkCount(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw invalid(field, `${field} must be a non-negative integer; it is ${String(value)}`);
  }
}

function invalid(field: string, message: string): MemoryError {
  return new MemoryError('VALIDATION_FAILED', `${message}.`, {
    details: { field },
    issues: [{ path: field, message }],
  });
}
