/**
 * Answers of the verifiable log's proof routes (`GET .../proofs/inclusion`, `.../consistency`):
 * shapes fixed for outside verifiers, hashes in standard base64.
 */
import { z } from 'zod';
import { Seq } from '../core/index.js';

/** Standard base64 (RFC 4648 §4, padded) of a 32-byte hash. */
const Base64Hash = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/)
  .describe('A SHA-256 hash, standard base64.');

/**
 * `GET proofs/inclusion`: the event at `seq` is leaf `seq` of the tree of `treeSize` leaves
 * (RFC 9162 inclusion path from the leaf up); `leaf` is its memledger/leaf/v1 bytes in base64.
 */
export const InclusionProof = z.strictObject({
  seq: Seq,
  treeSize: z.number().int().min(1),
  leaf: z.string().describe('The memledger/leaf/v1 bytes of the event, standard base64.'),
  leafHash: Base64Hash,
  path: z.array(Base64Hash),
});

/** `GET proofs/consistency`: the tree of `from` leaves is a prefix of the tree of `to` leaves. */
export const ConsistencyProof = z.strictObject({
  from: z.number().int().min(0),
  to: z.number().int().min(0),
  path: z.array(Base64Hash),
});

/** The proof schemas by component name. */
export const PROOF_RESPONSE_SCHEMAS = { InclusionProof, ConsistencyProof } as const;
