/**
 * Inclusion and consistency proof verification (RFC 9162 §2.1.3.2, §2.1.4.2) over the plans of
 * rfc9162.ts. Each check is written once, as a generator that yields the node hashes it needs
 * (`[left, right]`, answered with `H(0x01 || left || right)`), so the same code runs with
 * WebCrypto here ({@link verifyInclusion}, {@link verifyConsistency}) and synchronously with
 * node:crypto on the server ({@link runHashSteps}). The checks throw a `VerifyError` on any
 * failure and return nothing, so a caller cannot forget to look at a result.
 */
import { checkHash, equalBytes, toBase64 } from './bytes.js';
import { EMPTY_ROOT, nodeHash } from './hashing.js';
import { checkSize, consistencyPlan, inclusionPlan } from './rfc9162.js';
import { VerifyError } from './verify-error.js';

/** A proof that the leaf with hash `leafHash` is leaf `index` of the tree of `size` leaves. */
export interface InclusionProof {
  readonly index: number;
  readonly size: number;
  readonly leafHash: Uint8Array;
  /** The sibling hashes from the leaf up (RFC 9162 `inclusion_path`). */
  readonly path: readonly Uint8Array[];
}

/** A proof that the tree of `from` leaves is a prefix of the tree of `to` leaves. */
export interface ConsistencyProof {
  readonly from: number;
  readonly to: number;
  /** RFC 9162 `consistency_path`: empty when `from` is 0 or equals `to`. */
  readonly path: readonly Uint8Array[];
}

/** A check in progress: yields `[left, right]` pairs, is answered with their node hash. */
export type HashSteps<T> = Generator<readonly [Uint8Array, Uint8Array], T, Uint8Array>;

/** Runs a check with a synchronous node hash (node:crypto on the server). */
export function runHashSteps<T>(
  steps: HashSteps<T>,
  node: (l: Uint8Array, r: Uint8Array) => Uint8Array,
): T {
  let next = steps.next();
  while (!next.done) next = steps.next(node(...next.value));
  return next.value;
}

/** Runs a check with WebCrypto. */
export async function runHashStepsAsync<T>(steps: HashSteps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await nodeHash(...next.value));
  return next.value;
}

/**
 * The root an inclusion proof leads to (RFC 9162 §2.1.3.2 steps 1 to 4, with the path length
 * checks of steps 4a and 5). Throws `INCLUSION_PROOF_INVALID` or `ENCODING_INVALID`.
 */
export function* inclusionRootSteps(proof: InclusionProof): HashSteps<Uint8Array> {
  const path = proof.path.map((hash, i) => checkHash(hash, `inclusion path hash ${i}`));
  const sides = inclusionPlan(proof.index, proof.size, path.length);
  let r = checkHash(proof.leafHash, 'leaf hash');
  for (const [i, side] of sides.entries()) {
    r = side === 'left' ? yield [path[i]!, r] : yield [r, path[i]!];
  }
  return r;
}

/** RFC 9162 §2.1.3.2 in full: the proof leads to `root`, else `INCLUSION_PROOF_INVALID`. */
export function* inclusionSteps(proof: InclusionProof, root: Uint8Array): HashSteps<void> {
  checkHash(root, 'root');
  const computed = yield* inclusionRootSteps(proof);
  if (!equalBytes(computed, root)) {
    throw new VerifyError(
      'INCLUSION_PROOF_INVALID',
      `The inclusion path of leaf ${proof.index} leads to root ${toBase64(computed)}, not to the tree of ${proof.size} leaves with root ${toBase64(root)}.`,
      { index: proof.index, size: proof.size },
    );
  }
}

/**
 * RFC 9162 §2.1.4.2 in full, with the cases it leaves to the caller: equal sizes need equal
 * roots and an empty path; the empty tree (`from` 0, root `SHA-256()`) needs an empty path; a
 * size that went down is refused. Throws `CONSISTENCY_PROOF_INVALID` naming what failed.
 */
export function* consistencySteps(
  proof: ConsistencyProof,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
): HashSteps<void> {
  const { from, to } = proof;
  checkSize(from, 'first tree size', 'CONSISTENCY_PROOF_INVALID');
  checkSize(to, 'second tree size', 'CONSISTENCY_PROOF_INVALID');
  checkHash(fromRoot, 'first root');
  checkHash(toRoot, 'second root');
  const path = proof.path.map((hash, i) => checkHash(hash, `consistency path hash ${i}`));
  if (to < from) fail(`The tree size went down from ${from} to ${to}.`, proof);
  if (from === to || from === 0) {
    if (path.length !== 0) {
      fail(
        `A consistency path from ${from} to ${to} must be empty; it has ${path.length} hashes.`,
        proof,
      );
    }
    if (from === 0 && !equalBytes(fromRoot, EMPTY_ROOT)) {
      fail(
        `A tree of 0 leaves has root ${toBase64(EMPTY_ROOT)}, not ${toBase64(fromRoot)}.`,
        proof,
      );
    }
    if (from !== 0 && !equalBytes(fromRoot, toRoot)) {
      fail(
        `Two roots of the tree at size ${from} differ: ${toBase64(fromRoot)} and ${toBase64(toRoot)}.`,
        proof,
      );
    }
    return;
  }
  // Steps 1 to 6, then step 7's comparisons: both roots, never only one of them.
  const plan = consistencyPlan(from, to, path.length);
  const hashes = plan.prependFirstRoot ? [fromRoot, ...path] : path;
  let fr = hashes[0]!;
  let sr = hashes[0]!;
  for (const [i, step] of plan.steps.entries()) {
    const c = hashes[i + 1]!;
    if (step === 'both') {
      fr = yield [c, fr];
      sr = yield [c, sr];
    } else {
      sr = yield [sr, c];
    }
  }
  const wrong = [
    equalBytes(fr, fromRoot) ? '' : `the first root (${from} leaves)`,
    equalBytes(sr, toRoot) ? '' : `the second root (${to} leaves)`,
  ].filter(Boolean);
  if (wrong.length > 0) {
    fail(
      `The consistency path from ${from} to ${to} does not lead to ${wrong.join(' nor to ')}.`,
      proof,
    );
  }
}

/** The root an inclusion proof leads to, with WebCrypto. See {@link inclusionRootSteps}. */
export function rootFromInclusion(proof: InclusionProof): Promise<Uint8Array> {
  return runHashStepsAsync(inclusionRootSteps(proof));
}

/** Checks an inclusion proof against `root` with WebCrypto. See {@link inclusionSteps}. */
export function verifyInclusion(proof: InclusionProof, root: Uint8Array): Promise<void> {
  return runHashStepsAsync(inclusionSteps(proof, root));
}

/** Checks a consistency proof between two roots with WebCrypto. See {@link consistencySteps}. */
export function verifyConsistency(
  proof: ConsistencyProof,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
): Promise<void> {
  return runHashStepsAsync(consistencySteps(proof, fromRoot, toRoot));
}

function fail(message: string, proof: ConsistencyProof): never {
  throw new VerifyError('CONSISTENCY_PROOF_INVALID', message, { from: proof.from, to: proof.to });
}
