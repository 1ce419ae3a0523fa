/**
 * Roots and proofs read from stored complete subtrees, checked against the verifier
 * (src/verify, WebCrypto) and against RFC 9162's recursive definitions (reference-merkle.ts):
 * every (i, n) and (m, n) up to 70 leaves, random pairs in larger trees, and the bound on how
 * many stored nodes a proof reads. The exhaustive loops run the verifier's checks with the
 * reference's synchronous hash (the same checks, thousands of times faster than one WebCrypto
 * call each); the random ones run it with WebCrypto, as browsers do.
 */
import { isMemoryError } from '../../src/core/index.js';
import { InMemoryTree } from '../../src/tlog/in-memory-tree.js';
import {
  consistencyPath,
  inclusionPath,
  treeRoot,
  type SubtreeSource,
} from '../../src/tlog/subtrees.js';
import { appendRows, completedSubtrees, rowOfNode, rowSubtrees } from '../../src/tlog/tree-rows.js';
import {
  consistencySteps,
  emptyRoot,
  inclusionSteps,
  runHashSteps,
  verifyConsistency,
  verifyInclusion,
} from '../../src/verify/index.js';
import {
  refNodeHash,
  refPath,
  refProof,
  refRoot,
  sampleLeafHashes,
} from '../verify/reference-merkle.js';

const SMALL = 70;
/** Hashes as one hex text: compared as a string, far faster than Jest's deep equality. */
const hex = (hashes: readonly Buffer[]) => hashes.map((h) => h.toString('hex')).join(' ');

function treeOf(hashes: readonly Buffer[]): InMemoryTree {
  const tree = new InMemoryTree();
  for (const hash of hashes) tree.append(hash);
  return tree;
}

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('proofs from stored subtrees', () => {
  const hashes = sampleLeafHashes(SMALL);
  const tree = treeOf(hashes);

  it(`gives the RFC root at every size up to ${SMALL}, and SHA-256() for none`, () => {
    for (let n = 0; n <= SMALL; n++) expect(tree.root(n)).toEqual(refRoot(hashes.slice(0, n)));
    expect(new Uint8Array(tree.root(0))).toEqual(emptyRoot());
  });

  it(`gives the RFC inclusion path of every leaf at every size up to ${SMALL}, which the verifier accepts`, async () => {
    for (let n = 1; n <= SMALL; n++) {
      const root = tree.root(n);
      for (let i = 0; i < n; i++) {
        const path = tree.inclusionPath(i, n);
        expect(hex(path)).toBe(hex(refPath(i, hashes.slice(0, n))));
        const proof = { index: i, size: n, leafHash: hashes[i]!, path };
        runHashSteps(inclusionSteps(proof, root), refNodeHash);
      }
    }
  });

  it(`gives the RFC consistency path of every pair of sizes up to ${SMALL}, which the verifier accepts`, async () => {
    for (let n = 1; n <= SMALL; n++) {
      const root = tree.root(n);
      for (let m = 0; m <= n; m++) {
        const path = tree.consistencyPath(m, n);
        expect(hex(path)).toBe(hex(m === 0 ? [] : refProof(m, hashes.slice(0, n))));
        runHashSteps(consistencySteps({ from: m, to: n, path }, tree.root(m), root), refNodeHash);
      }
    }
  });

  it('gives verifiable proofs for random sizes, leaves and pairs of a tree of 5000 leaves', async () => {
    const many = sampleLeafHashes(5000, 'large');
    const big = treeOf(many);
    const next = random(30);
    for (let round = 0; round < 40; round++) {
      const n = 1 + Math.floor(next() * many.length);
      const i = Math.floor(next() * n);
      const m = Math.floor(next() * (n + 1));
      const root = big.root(n);
      expect(root).toEqual(refRoot(many.slice(0, n)));
      await verifyInclusion(
        { index: i, size: n, leafHash: many[i]!, path: big.inclusionPath(i, n) },
        root,
      );
      await verifyConsistency(
        { from: m, to: n, path: big.consistencyPath(m, n) },
        big.root(m),
        root,
      );
    }
  });

  it('reads O(log² n) stored nodes for a proof, never the whole log', () => {
    const size = 100_003;
    const big = treeOf(sampleLeafHashes(size, 'count'));
    let reads = 0;
    const counting: SubtreeSource = {
      node: (level, index) => {
        reads++;
        return big.node(level, index);
      },
    };
    const levels = Math.ceil(Math.log2(size));
    const next = random(7);
    for (let round = 0; round < 50; round++) {
      const n = 1 + Math.floor(next() * size);
      for (const work of [
        () => treeRoot(counting, n),
        () => inclusionPath(counting, Math.floor(next() * n), n),
        () => consistencyPath(counting, Math.floor(next() * n), n),
      ]) {
        reads = 0;
        work();
        expect(reads).toBeLessThanOrEqual(levels * levels);
      }
      reads = 0;
      treeRoot(counting, n);
      expect(reads).toBeLessThanOrEqual(levels);
    }
  });

  it('refuses a leaf at or past the size, a size past the head, and from past to', () => {
    const codeOf = (work: () => unknown) => {
      try {
        work();
      } catch (error) {
        return isMemoryError(error) ? error.code : String(error);
      }
      return undefined;
    };
    expect(codeOf(() => tree.inclusionPath(5, 5))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => tree.inclusionPath(-1, 5))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => tree.root(SMALL + 1))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => tree.consistencyPath(6, 5))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => inclusionPath(tree, 0, SMALL + 1))).toBe('TREE_NODE_MISSING');
  });
});

describe('tree rows', () => {
  const hashes = sampleLeafHashes(64, 'rows');
  const tree = treeOf(hashes);

  it('stores node (k, j) in the row of leaf (j + 1) * 2^k - 1 at offset 32k', () => {
    for (let level = 0; level <= 6; level++) {
      for (let index = 0; (index + 1) * 2 ** level <= 64; index++) {
        const row = tree.row(rowOfNode(level, index))!;
        const expected = refRoot(hashes.slice(index * 2 ** level, (index + 1) * 2 ** level));
        expect(row.subarray(level * 32, level * 32 + 32)).toEqual(expected);
      }
    }
  });

  it('gives leaf i one subtree per trailing 1 bit of i', () => {
    for (let i = 0; i < 64; i++) {
      const trailingOnes = (i ^ (i + 1)).toString(2).length - 1;
      expect(completedSubtrees(i, hashes[i]!, tree)).toHaveLength(trailingOnes);
      expect(tree.row(i)).toHaveLength(32 * (1 + trailingOnes));
    }
  });

  it('writes the same rows for a batch as for leaves appended one by one', () => {
    const first = treeOf(hashes.slice(0, 13));
    const source = rowSubtrees((leaf) => first.row(leaf));
    const batch = appendRows(13, hashes.slice(13, 50), source);
    expect(batch).toEqual(hashes.slice(13, 50).map((_, i) => tree.row(13 + i)));
  });

  it('refuses a leaf hash that is not 32 bytes', () => {
    expect(() => new InMemoryTree().append(Buffer.alloc(31))).toThrow('must be 32 bytes');
  });
});
