/**
 * The verifier anyone can run: Merkle proofs (RFC 9162), signed notes and checkpoints (C2SP
 * signed-note, tlog-checkpoint, tlog-cosignature) and memledger's canonical leaf. It uses only
 * WebCrypto (`globalThis.crypto.subtle`), so the same files run in Node and in a browser.
 */
export {
  HASH_BYTES,
  concatBytes,
  equalBytes,
  fromBase64,
  hashFromBase64,
  toBase64,
  toHex,
  utf8,
} from './bytes.js';
export { MAX_JSON_DEPTH, canonicalJson } from './canonical-json.js';
export {
  formatCheckpoint,
  parseCheckpoint,
  verifyCheckpoint,
  type Checkpoint,
  type CheckpointTrust,
  type VerifiedCheckpoint,
} from './checkpoint.js';
export { emptyRoot, leafHash, nodeHash, rootFromLeafHashes, sha256 } from './hashing.js';
export {
  LEAF_EVENT_TYPES,
  LEAF_V1_HEADER,
  eventLeafHash,
  leafBody,
  leafBytes,
  leafText,
  parseLeaf,
  type LeafEventType,
  type LeafInput,
} from './leaf.js';
export {
  parseConsistencyProof,
  parseInclusionProof,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
  type LeafInclusionProof,
} from './proof-json.js';
export {
  consistencySteps,
  inclusionRootSteps,
  inclusionSteps,
  rootFromInclusion,
  runHashSteps,
  runHashStepsAsync,
  verifyConsistency,
  verifyInclusion,
  type ConsistencyProof,
  type HashSteps,
  type InclusionProof,
} from './proofs.js';
export {
  consistencyPlan,
  inclusionPlan,
  isPowerOfTwo,
  type ConsistencyPlan,
  type Side,
} from './rfc9162.js';
export {
  MAX_NOTE_SIGNATURES,
  addSignatureLines,
  cosignatureMessage,
  formatNote,
  openNote,
  parseNote,
  signatureLine,
  type Note,
  type NoteSignature,
  type OpenedNote,
  type VerifiedSignature,
} from './signed-note.js';
export {
  VERIFY_ERROR_CODES,
  VerifyError,
  isVerifyError,
  type VerifyErrorCode,
} from './verify-error.js';
export {
  SIGNATURE_TYPE,
  formatVerifierKey,
  isValidKeyName,
  keyIdOf,
  parseVerifierKey,
  verifyEd25519,
  type SignatureType,
  type VerifierKey,
} from './vkey.js';
