/**
 * The checked-in memledger/leaf/v1 vectors (test/fixtures/leaf-v1.vectors.json), recomputed:
 * leaf texts and bytes by the verifier and by an independent sorted-keys JSON writer, leaf
 * hashes by the verifier and node:crypto, roots by the verifier and by RFC 9162's recursive
 * MTH written in the test (reference-merkle.ts), proofs and the signed checkpoint by the
 * verifier. Nothing here uses the code that built the tree.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LEAF_V1_HEADER,
  leafBytes,
  leafHash,
  leafText,
  parseCheckpoint,
  parseConsistencyProof,
  parseInclusionProof,
  parseNote,
  parseVerifierKey,
  rootFromLeafHashes,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
  type Checkpoint,
  type LeafInput,
} from '../../src/verify/index.js';
import { refPath, refRoot } from './reference-merkle.js';

interface Vectors {
  leaves: { input: LeafInput; leafText: string; leafBytes: string; leafHash: string }[];
  roots: { size: number; root: string }[];
  proofs: { inclusion: unknown[]; consistency: { from: number; to: number; path: string[] }[] };
  checkpoint: { logKey: string; witnessKey: string; note: string };
  large: {
    size: number;
    leafTexts: string[];
    root: string;
    rootAt: Record<string, string>;
    proofs: { inclusion: unknown[]; consistency: { from: number; to: number; path: string[] }[] };
  };
}

const vectors = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'leaf-v1.vectors.json'), 'utf8'),
) as Vectors;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const nodeLeafHash = (bytes: Uint8Array) =>
  createHash('sha256')
    .update(Buffer.from([0]))
    .update(bytes)
    .digest();

/** JSON with object keys sorted, written without JCS: enough for strings, integers, null. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('memledger/leaf/v1 vectors', () => {
  it('holds one event of every kind, sealed content in its sealed form', () => {
    expect(vectors.leaves.map((l) => l.input.type)).toEqual([
      'Message',
      'Document',
      'Message',
      'Document',
      'Recall',
      'Deletion',
      'Erasure',
      'Message',
    ]);
    for (const seq of [2, 3]) {
      const body = vectors.leaves[seq]!.input.body;
      expect(body.sealed).toMatch(/^v1\./);
      expect(Object.keys(body)).not.toEqual(expect.arrayContaining(['content', 'text', 'name']));
    }
  });

  it.each(vectors.leaves.map((leaf, seq) => [seq, leaf] as const))(
    'recomputes the text, bytes and hash of leaf %i, two ways',
    async (_seq, leaf) => {
      expect(leafText(leaf.input)).toBe(leaf.leafText);
      expect(leaf.leafText).toBe(LEAF_V1_HEADER + sortedJson(leaf.input));
      expect(b64(leafBytes(leaf.input))).toBe(leaf.leafBytes);
      expect(Buffer.from(leaf.leafBytes, 'base64').toString('utf8')).toBe(leaf.leafText);
      expect(b64(await leafHash(leafBytes(leaf.input)))).toBe(leaf.leafHash);
      expect(b64(nodeLeafHash(Buffer.from(leaf.leafText, 'utf8')))).toBe(leaf.leafHash);
    },
  );

  it('recomputes the roots at sizes 1 to 8 with the verifier and with the RFC recursion', async () => {
    const hashes = vectors.leaves.map((l) => Buffer.from(l.leafHash, 'base64'));
    for (const { size, root } of vectors.roots) {
      expect(b64(await rootFromLeafHashes(hashes.slice(0, size)))).toBe(root);
      expect(b64(refRoot(hashes.slice(0, size)))).toBe(root);
    }
  });

  it('verifies the signed, cosigned checkpoint and every proof against it', async () => {
    const { logKey, witnessKey, note } = vectors.checkpoint;
    const log = await parseVerifierKey(logKey);
    const checkpoint = await verifyCheckpoint(note, {
      log,
      witnesses: [await parseVerifierKey(witnessKey)],
      origin: 'vectors.example/team-1',
    });
    expect(b64(checkpoint.root)).toBe(vectors.roots[7]!.root);
    for (const json of vectors.proofs.inclusion) {
      const proof = parseInclusionProof(json);
      const at: Checkpoint = {
        ...checkpoint,
        size: proof.treeSize,
        root: Buffer.from(vectors.roots[proof.treeSize - 1]!.root, 'base64'),
      };
      await verifyLeafInclusion(proof, at, vectors.leaves[proof.seq]!.input);
    }
    for (const json of vectors.proofs.consistency) {
      const proof = parseConsistencyProof(json);
      const at = (size: number): Checkpoint => ({
        ...checkpoint,
        size,
        root: Buffer.from(vectors.roots[size - 1]!.root, 'base64'),
      });
      await verifyCheckpointConsistency(at(proof.from), at(proof.to), proof);
    }
    expect(parseCheckpoint(parseNote(note).text).size).toBe(8);
  });

  it(`recomputes the ${vectors.large.size}-leaf tree from its leaf texts, two ways, and verifies its proofs`, async () => {
    const hashes = vectors.large.leafTexts.map((text) => nodeLeafHash(Buffer.from(text, 'utf8')));
    expect(b64(refRoot(hashes))).toBe(vectors.large.root);
    expect(b64(await rootFromLeafHashes(hashes))).toBe(vectors.large.root);
    for (const [size, root] of Object.entries(vectors.large.rootAt)) {
      expect(b64(refRoot(hashes.slice(0, Number(size))))).toBe(root);
    }
    const at = (size: number): Checkpoint => ({
      origin: 'x',
      size,
      root: refRoot(hashes.slice(0, size)),
      extensions: [],
    });
    for (const json of vectors.large.proofs.inclusion) {
      const proof = parseInclusionProof(json);
      expect(Buffer.from(proof.leaf).toString('utf8')).toBe(vectors.large.leafTexts[proof.seq]);
      await verifyLeafInclusion(proof, at(proof.treeSize));
    }
    for (const json of vectors.large.proofs.consistency) {
      const proof = parseConsistencyProof(json);
      await verifyCheckpointConsistency(at(proof.from), at(proof.to), proof);
    }
  });

  it("refuses a proof whose leaf is not the event it is said to be, or whose size is not the checkpoint's", async () => {
    const proof = parseInclusionProof(vectors.proofs.inclusion[0]);
    const checkpoint: Checkpoint = {
      origin: 'x',
      size: 8,
      root: Buffer.from(vectors.roots[7]!.root, 'base64'),
      extensions: [],
    };
    const other = vectors.leaves[3]!.input;
    await expect(
      verifyLeafInclusion(proof, checkpoint, { ...other, seq: proof.seq }),
    ).rejects.toThrow('is not the leaf of event');
    await expect(verifyLeafInclusion(proof, { ...checkpoint, size: 9 })).rejects.toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
    });
    const lyingHash = { ...proof, leafHash: Buffer.from(vectors.leaves[3]!.leafHash, 'base64') };
    await expect(verifyLeafInclusion(lyingHash, checkpoint)).rejects.toThrow(
      'leafHash is not the hash of its leaf',
    );
  });

  it('refuses a leaf that sits at another index than the seq it binds', async () => {
    const texts = vectors.leaves.map((l) => l.leafText);
    [texts[2], texts[3]] = [texts[3]!, texts[2]!]; // a log with two events swapped
    const hashes = texts.map((text) => nodeLeafHash(Buffer.from(text, 'utf8')));
    const checkpoint: Checkpoint = { origin: 'x', size: 8, root: refRoot(hashes), extensions: [] };
    const proof = {
      seq: 2,
      treeSize: 8,
      leaf: Buffer.from(texts[2], 'utf8'),
      leafHash: hashes[2]!,
      path: refPath(2, hashes),
    };
    await expect(verifyLeafInclusion(proof, checkpoint)).rejects.toThrow(
      'The proof is for seq 2 but its leaf is the event at seq 3.',
    );
  });
});
