/**
 * The verifier against the published RFC 6962/9162 test vectors (Certificate Transparency's
 * eight-leaf tree, as carried by transparency-dev/merkle's proof generator), and every corrupted
 * variant of those proofs that generator writes: each must be refused.
 */
import {
  emptyRoot,
  leafHash,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
  type ConsistencyProof,
  type InclusionProof,
} from '../../src/verify/index.js';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(hex);

/** MTH of the first n leaves, n = 1..8. */
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hex);

/** [leaf index (0-based), tree size, path]. */
const INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];

/** [first size, second size, path]. */
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
  [
    6,
    7,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
];

const SOME_HASH = hex('abacaba000000000000000000000000000000000000000000060061e00123456');
const flipped = (hash: Uint8Array) => Uint8Array.from(hash, (b, i) => (i === 0 ? b ^ 8 : b));
const rejects = (promise: Promise<unknown>) =>
  expect(promise).rejects.toMatchObject({ name: 'VerifyError' });

describe('the verifier against RFC 6962/9162 vectors', () => {
  it('computes the published roots of the eight-leaf tree at every size', async () => {
    const hashes = await Promise.all(LEAVES.map((leaf) => leafHash(leaf)));
    for (let n = 1; n <= 8; n++) {
      expect(Buffer.from(await rootFromLeafHashes(hashes.slice(0, n))).toString('hex')).toBe(
        Buffer.from(ROOTS[n - 1]!).toString('hex'),
      );
    }
    expect(Buffer.from(await rootFromLeafHashes([])).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(emptyRoot()).toEqual(await rootFromLeafHashes([]));
  });

  describe.each(INCLUSION)('inclusion of leaf %i in the tree of %i', (index, size, pathHex) => {
    const path = pathHex.map(hex);
    const root = ROOTS[size - 1]!;
    let leaf: Uint8Array;
    beforeAll(async () => {
      leaf = await leafHash(LEAVES[index]!);
    });
    const proof = (changes: Partial<InclusionProof> = {}): InclusionProof => ({
      index,
      size,
      leafHash: leaf,
      path,
      ...changes,
    });

    it('verifies the published proof', async () => {
      await expect(verifyInclusion(proof(), root)).resolves.toBeUndefined();
    });

    it('refuses a wrong index, a wrong size, a wrong leaf or root', async () => {
      await rejects(verifyInclusion(proof({ index: index - 1 }), root));
      await rejects(verifyInclusion(proof({ index: index + 1 }), root));
      await rejects(verifyInclusion(proof({ index: index ^ 2 }), root));
      await rejects(verifyInclusion(proof({ size: size * 2 }), root));
      await rejects(verifyInclusion(proof({ size: Math.floor(size / 2) }), root));
      await rejects(
        verifyInclusion(proof({ leafHash: Uint8Array.from(Buffer.from('WrongLeaf')) }), root),
      );
      await rejects(verifyInclusion(proof({ leafHash: SOME_HASH }), root));
      await rejects(verifyInclusion(proof(), emptyRoot()));
      await rejects(verifyInclusion(proof(), SOME_HASH));
    });

    it('refuses garbage before or after the path, a removed, inserted or altered hash', async () => {
      await rejects(verifyInclusion(proof({ path: [...path, new Uint8Array(0)] }), root));
      await rejects(verifyInclusion(proof({ path: [...path, root] }), root));
      await rejects(verifyInclusion(proof({ path: [new Uint8Array(0), ...path] }), root));
      await rejects(verifyInclusion(proof({ path: [root, ...path] }), root));
      for (let i = 0; i < path.length; i++) {
        const altered = path.map((hash, j) => (j === i ? flipped(hash) : hash));
        await rejects(verifyInclusion(proof({ path: altered }), root));
      }
      if (path.length > 0) await rejects(verifyInclusion(proof({ path: path.slice(0, -1) }), root));
      if (path.length > 1) {
        await rejects(
          verifyInclusion(proof({ path: [path[0]!, SOME_HASH, ...path.slice(1)] }), root),
        );
      }
    });
  });

  describe.each(CONSISTENCY)('consistency from %i to %i', (first, second, pathHex) => {
    const path = pathHex.map(hex);
    const [root1, root2] = [ROOTS[first - 1]!, ROOTS[second - 1]!];
    const check = (p: ConsistencyProof, a: Uint8Array = root1, b: Uint8Array = root2) =>
      verifyConsistency(p, a, b);
    const proof = (changes: Partial<ConsistencyProof> = {}): ConsistencyProof => ({
      from: first,
      to: second,
      path,
      ...changes,
    });

    it('verifies the published proof', async () => {
      await expect(check(proof())).resolves.toBeUndefined();
    });

    it('refuses wrong sizes, swapped or wrong roots', async () => {
      await rejects(check(proof({ from: first - 1 })));
      await rejects(check(proof({ from: first + 1 })));
      await rejects(check(proof({ from: first ^ 2 })));
      await rejects(check(proof({ to: second * 2 })));
      await rejects(check(proof({ to: Math.floor(second / 2) })));
      if (first !== second) await rejects(check(proof(), root2, root1));
      await rejects(check(proof(), SOME_HASH, root2));
      await rejects(check(proof(), root1, SOME_HASH));
      await rejects(check(proof(), emptyRoot(), root2));
    });

    it('refuses an empty, truncated, padded or altered path', async () => {
      if (path.length > 0) {
        await rejects(check(proof({ path: [] })));
        await rejects(check(proof({ path: path.slice(0, -1) })));
      }
      for (const extra of [new Uint8Array(0), root1, root2]) {
        await rejects(check(proof({ path: [...path, extra] })));
        await rejects(check(proof({ path: [extra, ...path] })));
      }
      for (let i = 0; i < path.length; i++) {
        await rejects(check(proof({ path: path.map((h, j) => (j === i ? flipped(h) : h)) })));
      }
    });
  });

  it('accepts a one-leaf tree proving its only leaf, and refuses the empty hash in its place', async () => {
    const hash = await leafHash(Uint8Array.from(Buffer.from('data')));
    await expect(
      verifyInclusion({ index: 0, size: 1, leafHash: hash, path: [] }, hash),
    ).resolves.toBeUndefined();
    const empty = new Uint8Array(0);
    await rejects(verifyInclusion({ index: 0, size: 1, leafHash: empty, path: [] }, hash));
    await rejects(verifyInclusion({ index: 0, size: 1, leafHash: hash, path: [] }, empty));
  });

  it.each([
    [0, 0],
    [1, 0],
    [2, 1],
  ])('refuses leaf %i of a tree of %i, whatever the root', async (index, size) => {
    for (const root of [emptyRoot(), SOME_HASH]) {
      await rejects(verifyInclusion({ index, size, leafHash: SOME_HASH, path: [] }, root));
    }
  });

  it('refuses equal sizes with different roots, and the empty tree with another root', async () => {
    await rejects(verifyConsistency({ from: 1, to: 1, path: [] }, ROOTS[0]!, ROOTS[1]!));
    await rejects(verifyConsistency({ from: 0, to: 0, path: [] }, ROOTS[0]!, ROOTS[1]!));
    await rejects(verifyConsistency({ from: 0, to: 3, path: [] }, ROOTS[0]!, ROOTS[2]!));
    await expect(
      verifyConsistency({ from: 0, to: 3, path: [] }, emptyRoot(), ROOTS[2]!),
    ).resolves.toBeUndefined();
    await rejects(verifyConsistency({ from: 0, to: 3, path: [ROOTS[2]!] }, emptyRoot(), ROOTS[2]!));
  });
});
