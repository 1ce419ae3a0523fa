/**
 * The verifier against RFC 9162's own definitions (reference-merkle.ts, the recursive MTH, PATH
 * and PROOF written from the text): every proof of every small tree verifies, and every way
 * to lie with a proof is refused — including the shapes a verifier that checks only part of a
 * proof accepts (immudb GHSA-672p-m5jq-mrh8: only one end of the proof was compared).
 */
import {
  consistencyPlan,
  emptyRoot,
  inclusionPlan,
  isVerifyError,
  rootFromInclusion,
  verifyConsistency,
  verifyInclusion,
} from '../../src/verify/index.js';
import { refPath, refProof, refRoot, sampleLeafHashes } from './reference-merkle.js';

const MAX = 20;
const tree = sampleLeafHashes(64, 'ours');
const other = sampleLeafHashes(64, 'theirs');
/** Our tree with leaf `at` rewritten (history changed there), the rest the same. */
const rewritten = (at: number) => tree.map((hash, i) => (i === at ? other[i]! : hash));

async function refused(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isVerifyError(error)).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

describe('inclusion proofs (RFC 9162 §2.1.3.2)', () => {
  it(`verifies every leaf of every tree up to ${MAX} leaves, landing on the MTH`, async () => {
    for (let n = 1; n <= MAX; n++) {
      const root = refRoot(tree.slice(0, n));
      for (let i = 0; i < n; i++) {
        const proof = { index: i, size: n, leafHash: tree[i]!, path: refPath(i, tree.slice(0, n)) };
        expect(Buffer.from(await rootFromInclusion(proof))).toEqual(root);
        await verifyInclusion(proof, root);
      }
    }
  });

  it('refuses an index at or past the size, and a negative or fractional one', async () => {
    const root = refRoot(tree.slice(0, 5));
    for (const index of [5, 6, -1, 1.5, Number.NaN]) {
      await refused(
        verifyInclusion({ index, size: 5, leafHash: tree[0]!, path: [] }, root),
        'INCLUSION_PROOF_INVALID',
      );
    }
  });

  it('refuses a truncated path and an over-long one, saying how many hashes the tree needs', async () => {
    const path = refPath(3, tree.slice(0, 11));
    const root = refRoot(tree.slice(0, 11));
    const short = verifyInclusion(
      { index: 3, size: 11, leafHash: tree[3]!, path: path.slice(0, -1) },
      root,
    );
    await expect(short).rejects.toThrow(
      `has ${path.length - 1} hashes where the tree (index 3, size 11) needs ${path.length}`,
    );
    const long = verifyInclusion(
      { index: 3, size: 11, leafHash: tree[3]!, path: [...path, path[0]!] },
      root,
    );
    await expect(long).rejects.toThrow(`needs ${path.length}`);
  });

  it('refuses a proof from another tree, for an older root, or for the leaf at another index', async () => {
    const n = 13;
    const root = refRoot(tree.slice(0, n));
    const theirs = { index: 4, size: n, leafHash: other[4]!, path: refPath(4, other.slice(0, n)) };
    await refused(verifyInclusion(theirs, root), 'INCLUSION_PROOF_INVALID');
    const ours = { index: 4, size: n, leafHash: tree[4]!, path: refPath(4, tree.slice(0, n)) };
    await refused(verifyInclusion(ours, refRoot(tree.slice(0, n - 1))), 'INCLUSION_PROOF_INVALID');
    await refused(
      verifyInclusion({ ...ours, leafHash: tree[5]! }, root),
      'INCLUSION_PROOF_INVALID',
    );
    await refused(verifyInclusion({ ...ours, index: 5 }, root), 'INCLUSION_PROOF_INVALID');
  });

  it('refuses hashes that are not 32 bytes, wherever they are', async () => {
    const path = refPath(0, tree.slice(0, 4));
    const root = refRoot(tree.slice(0, 4));
    const long = new Uint8Array(33);
    await refused(
      verifyInclusion({ index: 0, size: 4, leafHash: long, path }, root),
      'ENCODING_INVALID',
    );
    await refused(
      verifyInclusion({ index: 0, size: 4, leafHash: tree[0]!, path: [path[0]!, long] }, root),
      'ENCODING_INVALID',
    );
    await refused(
      verifyInclusion({ index: 0, size: 4, leafHash: tree[0]!, path }, root.subarray(1)),
      'ENCODING_INVALID',
    );
  });

  it('plans from sizes alone: the number of hashes is the depth of the leaf in the tree', () => {
    expect(inclusionPlan(0, 1, 0)).toEqual([]);
    expect(inclusionPlan(6, 7, 2)).toEqual(['left', 'left']);
    expect(inclusionPlan(4, 8, 3)).toEqual(['right', 'right', 'left']);
  });
});

describe('consistency proofs (RFC 9162 §2.1.4.2)', () => {
  it(`verifies every pair of sizes of every tree up to ${MAX} leaves`, async () => {
    for (let n = 1; n <= MAX; n++) {
      const second = refRoot(tree.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const path = refProof(m, tree.slice(0, n));
        await verifyConsistency({ from: m, to: n, path }, refRoot(tree.slice(0, m)), second);
      }
      await verifyConsistency({ from: 0, to: n, path: [] }, emptyRoot(), second);
    }
  });

  it('refuses a size that went down, whatever the path', async () => {
    const [a, b] = [refRoot(tree.slice(0, 9)), refRoot(tree.slice(0, 5))];
    await refused(
      verifyConsistency({ from: 9, to: 5, path: refProof(5, tree.slice(0, 9)) }, a, b),
      'CONSISTENCY_PROOF_INVALID',
    );
    await expect(verifyConsistency({ from: 9, to: 5, path: [] }, a, b)).rejects.toThrow(
      'went down from 9 to 5',
    );
  });

  it('refuses a rewritten history: the honest path with the old root of the rewritten log', async () => {
    // A verifier that compared only the new root (as one SDK did) accepts this.
    for (const [m, n] of [
      [5, 13],
      [4, 13],
      [7, 8],
      [1, 2],
      [12, 13],
    ] as const) {
      const path = refProof(m, tree.slice(0, n));
      const forkedOld = refRoot(rewritten(m - 1).slice(0, m));
      const error = verifyConsistency(
        { from: m, to: n, path },
        forkedOld,
        refRoot(tree.slice(0, n)),
      );
      await refused(error, 'CONSISTENCY_PROOF_INVALID');
    }
  });

  it('refuses a new root that does not extend the old one: the rewritten log re-rooted, honest old root', async () => {
    // ... and one that compared only the old root accepts this.
    for (const [m, n] of [
      [5, 13],
      [4, 13],
      [7, 8],
      [1, 2],
    ] as const) {
      const old = refRoot(tree.slice(0, m));
      // Leaves after m may be anything: that is growth, and it verifies ...
      const grown = rewritten(n - 1);
      const path = refProof(m, grown.slice(0, n));
      await verifyConsistency({ from: m, to: n, path }, old, refRoot(grown.slice(0, n)));
      // ... but a log whose leaf m - 1 changed does not extend the old root.
      const forkedEarly = rewritten(m - 1);
      const lying = verifyConsistency(
        { from: m, to: n, path: refProof(m, forkedEarly.slice(0, n)) },
        old,
        refRoot(forkedEarly.slice(0, n)),
      );
      await refused(lying, 'CONSISTENCY_PROOF_INVALID');
    }
  });

  it('refuses the proof of another tree and an older checkpoint passed off as the new one', async () => {
    const n = 11;
    const theirs = refProof(6, other.slice(0, n));
    const [old, now] = [refRoot(tree.slice(0, 6)), refRoot(tree.slice(0, n))];
    await refused(
      verifyConsistency({ from: 6, to: n, path: theirs }, old, now),
      'CONSISTENCY_PROOF_INVALID',
    );
    const ours = refProof(6, tree.slice(0, n));
    await refused(
      verifyConsistency({ from: 6, to: n, path: ours }, old, refRoot(tree.slice(0, 9))),
      'CONSISTENCY_PROOF_INVALID',
    );
    await refused(
      verifyConsistency({ from: 6, to: 17, path: ours }, old, now),
      'CONSISTENCY_PROOF_INVALID',
    );
  });

  it('refuses a path for equal sizes or from the empty tree that is not empty', async () => {
    const root = refRoot(tree.slice(0, 4));
    await refused(
      verifyConsistency({ from: 4, to: 4, path: [root] }, root, root),
      'CONSISTENCY_PROOF_INVALID',
    );
    await refused(
      verifyConsistency({ from: 0, to: 4, path: [root] }, emptyRoot(), root),
      'CONSISTENCY_PROOF_INVALID',
    );
  });

  it('plans the first-root prepend of step 2 only for a power-of-two first size', () => {
    expect(consistencyPlan(4, 7, 1).prependFirstRoot).toBe(true);
    expect(consistencyPlan(3, 7, 4).prependFirstRoot).toBe(false);
    expect(() => consistencyPlan(3, 7, 0)).toThrow('has 0 hashes');
    expect(() => consistencyPlan(7, 7, 1)).toThrow('only defined from a smaller non-empty tree');
  });
});
