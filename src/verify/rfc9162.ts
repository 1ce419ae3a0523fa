/**
 * The proof checks of RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency), step by step.
 *
 * Both algorithms decide which side each path hash goes on from the sizes and the index alone,
 * never from hash values. So each is split in two: a plan (pure, synchronous: the RFC's loop
 * over fn and sn, with every check that fails the proof) and the hashing that follows it. The
 * browser and `memledger/verify` hash through WebCrypto (proofs.ts); the server's checkpoint
 * guard and witness hash synchronously with node:crypto over the very same plans.
 */
import { VerifyError } from './verify-error.js';

/** Where a path hash goes: `left` means `H(0x01 || p || r)`, `right` means `H(0x01 || r || p)`. */
export type Side = 'left' | 'right';

/** The hashing a consistency path asks for (RFC 9162 §2.1.4.2 steps 2 and 6). */
export interface ConsistencyPlan {
  /** Step 2: `first` is an exact power of 2, so `first_hash` goes in front of the path. */
  readonly prependFirstRoot: boolean;
  /**
   * One entry per path hash after the first (of the path with `first_hash` prepended when it
   * is): `both` updates fr and sr with `H(0x01 || c || x)`, `second` only sr with
   * `H(0x01 || sr || c)`.
   */
  readonly steps: readonly ('both' | 'second')[];
}

const half = (n: number) => Math.floor(n / 2);
const odd = (n: number) => n % 2 === 1;

/** True for 1, 2, 4, 8, ... */
export function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/** `value` when it is a non-negative safe integer, else a `code` error naming `what`. */
export function checkSize(value: number, what: string, code: ProofCode): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new VerifyError(code, `${what} must be a non-negative integer; it is ${String(value)}.`, {
      what,
    });
  }
  return value;
}

type ProofCode = 'INCLUSION_PROOF_INVALID' | 'CONSISTENCY_PROOF_INVALID';

/**
 * RFC 9162 §2.1.3.2 for leaf `index` of a tree of `size` leaves and a path of `pathLength`
 * hashes: the side of each path hash, in path order. Refuses (`INCLUSION_PROOF_INVALID`) an
 * index at or past the size (step 1), a path longer than the tree is high on that branch
 * (step 4a: sn reached 0 with hashes left) and a shorter one (step 5: sn is not 0 at the end).
 */
export function inclusionPlan(index: number, size: number, pathLength: number): Side[] {
  checkSize(index, 'index', 'INCLUSION_PROOF_INVALID');
  checkSize(size, 'tree size', 'INCLUSION_PROOF_INVALID');
  if (index >= size) {
    throw new VerifyError(
      'INCLUSION_PROOF_INVALID',
      `Leaf index ${index} is not in a tree of ${size} leaves.`,
      { index, size },
    );
  }
  let fn = index;
  let sn = size - 1;
  const sides: Side[] = [];
  for (let step = 0; step < pathLength; step++) {
    if (sn === 0) throw wrongLength('INCLUSION_PROOF_INVALID', pathLength, step, { index, size });
    if (odd(fn) || fn === sn) {
      sides.push('left');
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sides.push('right');
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) {
    const needed = pathLength + inclusionPlanRest(fn, sn);
    throw wrongLength('INCLUSION_PROOF_INVALID', pathLength, needed, { index, size });
  }
  return sides;
}

/** How many more hashes the inclusion loop would take from (fn, sn) to sn = 0. */
function inclusionPlanRest(fn: number, sn: number): number {
  let steps = 0;
  while (sn !== 0) {
    if (odd(fn) || fn === sn) {
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    }
    fn = half(fn);
    sn = half(sn);
    steps++;
  }
  return steps;
}

/**
 * RFC 9162 §2.1.4.2 for a consistency path of `pathLength` hashes from a tree of `first`
 * leaves to one of `second`, where `0 < first < second` (the caller settles the equal and empty
 * cases, which need no path). Refuses (`CONSISTENCY_PROOF_INVALID`) an empty path (step 1), a
 * path too long (step 6a) and one too short (step 7: sn is not 0 at the end).
 */
export function consistencyPlan(
  first: number,
  second: number,
  pathLength: number,
): ConsistencyPlan {
  checkSize(first, 'first tree size', 'CONSISTENCY_PROOF_INVALID');
  checkSize(second, 'second tree size', 'CONSISTENCY_PROOF_INVALID');
  const sizes = { first, second };
  if (first === 0 || first >= second) {
    throw new VerifyError(
      'CONSISTENCY_PROOF_INVALID',
      `A consistency path is only defined from a smaller non-empty tree: ${first} to ${second}.`,
      sizes,
    );
  }
  if (pathLength === 0) throw wrongLength('CONSISTENCY_PROOF_INVALID', 0, 1, sizes);
  const prependFirstRoot = isPowerOfTwo(first);
  const hashes = pathLength + (prependFirstRoot ? 1 : 0);
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  const steps: ('both' | 'second')[] = [];
  for (let index = 1; index < hashes; index++) {
    if (sn === 0) {
      const needed = index - (prependFirstRoot ? 1 : 0);
      throw wrongLength('CONSISTENCY_PROOF_INVALID', pathLength, needed, sizes);
    }
    if (odd(fn) || fn === sn) {
      steps.push('both');
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      steps.push('second');
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) {
    const needed = pathLength + inclusionPlanRest(fn, sn);
    throw wrongLength('CONSISTENCY_PROOF_INVALID', pathLength, needed, sizes);
  }
  return { prependFirstRoot, steps };
}

function wrongLength(
  code: ProofCode,
  given: number,
  needed: number,
  facts: Readonly<Record<string, number>>,
): VerifyError {
  const where = Object.entries(facts)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  const what = code === 'INCLUSION_PROOF_INVALID' ? 'inclusion' : 'consistency';
  return new VerifyError(
    code,
    `The ${what} path has ${given} hashes where the tree (${where}) needs ${needed}.`,
    { ...facts, given, needed },
  );
}
