/**
 * The proof shapes memledger serves over HTTP (docs/leaf-v1.md), read strictly, and checked
 * against signed checkpoints: the tree size and root come from the checkpoint, never from the
 * proof, and the leaf hash is recomputed from the leaf bytes, never taken from the server.
 */
import { equalBytes, fromBase64, hashFromBase64, toBase64 } from './bytes.js';
import type { Checkpoint } from './checkpoint.js';
import { leafHash } from './hashing.js';
import { leafBytes, parseLeaf, type LeafInput } from './leaf.js';
import { verifyConsistency, verifyInclusion, type ConsistencyProof } from './proofs.js';
import { VerifyError } from './verify-error.js';

/** `GET /api/memories/:id/proofs/inclusion?seq=i&size=n`, read. */
export interface LeafInclusionProof {
  readonly seq: number;
  readonly treeSize: number;
  /** The leaf bytes (memledger/leaf/v1). */
  readonly leaf: Uint8Array;
  readonly leafHash: Uint8Array;
  readonly path: readonly Uint8Array[];
}

/** More hashes than any tree of 2^53 leaves needs: a longer path is refused before hashing. */
const MAX_PATH = 64;

/** Reads the JSON of an inclusion proof, refusing (`ENCODING_INVALID`) any other shape. */
export function parseInclusionProof(json: unknown): LeafInclusionProof {
  const object = record(json, 'inclusion proof');
  return {
    seq: count(object.seq, 'seq'),
    treeSize: count(object.treeSize, 'treeSize'),
    leaf: fromBase64(text(object.leaf, 'leaf'), 'leaf'),
    leafHash: hashFromBase64(text(object.leafHash, 'leafHash'), 'leafHash'),
    path: hashes(object.path),
  };
}

/** Reads the JSON of a consistency proof, refusing (`ENCODING_INVALID`) any other shape. */
export function parseConsistencyProof(json: unknown): ConsistencyProof {
  const object = record(json, 'consistency proof');
  return {
    from: count(object.from, 'from'),
    to: count(object.to, 'to'),
    path: hashes(object.path),
  };
}

/**
 * Checks that `proof` proves its leaf in the tree of a (verified) `checkpoint`: the proof is for
 * the checkpoint's size, its leaf hash is the hash of its leaf bytes, the leaf is a canonical v1
 * leaf of the event at `proof.seq`, and the path leads to the checkpoint's root. With
 * `expected`, also that the leaf is exactly that event's. Returns what the leaf binds. Throws
 * `INCLUSION_PROOF_INVALID`, `LEAF_INVALID` or `CHECKPOINT_MISMATCH` saying which.
 */
export async function verifyLeafInclusion(
  proof: LeafInclusionProof,
  checkpoint: Checkpoint,
  expected?: LeafInput,
): Promise<LeafInput> {
  if (proof.treeSize !== checkpoint.size) {
    throw new VerifyError(
      'CHECKPOINT_MISMATCH',
      `The proof is for a tree of ${proof.treeSize} leaves; the checkpoint has ${checkpoint.size}.`,
      { treeSize: proof.treeSize, size: checkpoint.size },
    );
  }
  const hash = await leafHash(proof.leaf);
  if (!equalBytes(hash, proof.leafHash)) {
    throw new VerifyError(
      'INCLUSION_PROOF_INVALID',
      `The proof's leafHash is not the hash of its leaf (that is ${toBase64(hash)}).`,
      { seq: proof.seq },
    );
  }
  const leaf = parseLeaf(proof.leaf);
  if (leaf.seq !== proof.seq) {
    throw new VerifyError(
      'INCLUSION_PROOF_INVALID',
      `The proof is for seq ${proof.seq} but its leaf is the event at seq ${leaf.seq}.`,
      { seq: proof.seq, leafSeq: leaf.seq },
    );
  }
  if (expected !== undefined) {
    if (expected.seq !== proof.seq || !equalBytes(leafBytes(expected), proof.leaf)) {
      throw new VerifyError(
        'INCLUSION_PROOF_INVALID',
        `The proof's leaf is not the leaf of event ${expected.id} at seq ${expected.seq}.`,
        { seq: proof.seq, id: expected.id },
      );
    }
  }
  await verifyInclusion(
    { index: proof.seq, size: checkpoint.size, leafHash: hash, path: proof.path },
    checkpoint.root,
  );
  return leaf;
}

/**
 * Checks that `newer` extends `older` (both verified checkpoints of one origin) by `proof`,
 * whose sizes must be theirs. Throws `CHECKPOINT_MISMATCH` or `CONSISTENCY_PROOF_INVALID`.
 */
export async function verifyCheckpointConsistency(
  older: Checkpoint,
  newer: Checkpoint,
  proof: ConsistencyProof,
): Promise<void> {
  if (older.origin !== newer.origin) {
    throw new VerifyError(
      'CHECKPOINT_MISMATCH',
      `The checkpoints are of two logs: ${JSON.stringify(older.origin)} and ${JSON.stringify(newer.origin)}.`,
    );
  }
  if (proof.from !== older.size || proof.to !== newer.size) {
    throw new VerifyError(
      'CHECKPOINT_MISMATCH',
      `The proof is from ${proof.from} to ${proof.to}; the checkpoints are at ${older.size} and ${newer.size}.`,
      { from: proof.from, to: proof.to },
    );
  }
  await verifyConsistency(proof, older.root, newer.root);
}

function record(json: unknown, what: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw shape(`The ${what} must be a JSON object.`);
  }
  return json as Record<string, unknown>;
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw shape(`Proof field ${field} must be a non-negative integer.`);
  }
  return value;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw shape(`Proof field ${field} must be a base64 string.`);
  return value;
}

function hashes(value: unknown): Uint8Array[] {
  if (!Array.isArray(value) || value.length > MAX_PATH) {
    throw shape(`Proof field path must be an array of at most ${MAX_PATH} base64 hashes.`);
  }
  return value.map((item: unknown, i) => hashFromBase64(text(item, `path[${i}]`), `path[${i}]`));
}

function shape(message: string): VerifyError {
  return new VerifyError('ENCODING_INVALID', message);
}
