/**
 * The verifiable log on the server: the Merkle tree over stored complete subtrees, log and
 * witness keys, checkpoint signing behind the consistency guard, the witness and its client,
 * and the monitor. Verification itself lives in src/verify (`memledger/verify`).
 */
export {
  assertExtends,
  cosignatureLine,
  signCheckpoint,
  type NextCheckpoint,
  type TreeHead,
} from './checkpoint-signing.js';
export { InMemoryTree } from './in-memory-tree.js';
export { MerkleFrontier } from './merkle-frontier.js';
export { runMonitor, type MonitorOptions, type MonitorReport } from './monitor/monitor.js';
export { loadKeyFile, logKeyFromEnv, writeKeyFile } from './key-file.js';
export {
  defaultLogName,
  logIdentityFromEnv,
  logIdentityLine,
  logNameFor,
  type LogIdentity,
} from './log-identity.js';
export {
  generateSigner,
  parsePrivateKeyLine,
  signerFromSeed,
  type NoteSigner,
} from './note-signer.js';
export {
  consistencyPath,
  inclusionPath,
  rangeRoot,
  splitPoint,
  treeRoot,
  type SubtreeSource,
} from './subtrees.js';
export { emptyTreeRoot, leafHashOf, leafHashOfText, nodeHashOf } from './tree-hash.js';
export {
  ROW_HASH_BYTES,
  appendRows,
  completedSubtrees,
  rowOfNode,
  rowSubtrees,
  treeRow,
} from './tree-rows.js';
export {
  MAX_PROOF_LINES,
  MalformedRequest,
  formatAddCheckpointBody,
  parseAddCheckpointBody,
  type AddCheckpointBody,
} from './witness/add-checkpoint-body.js';
export { Witness, covers, type WitnessOptions, type WitnessResponse } from './witness/witness.js';
export {
  WitnessClient,
  parseWitnessList,
  type ProofFrom,
  type WitnessClientOptions,
  type WitnessEndpoint,
  type WitnessResult,
} from './witness/witness-client.js';
export {
  MAX_WITNESS_BODY_BYTES,
  startWitnessServer,
  type WitnessServer,
} from './witness/witness-server.js';
export { WitnessState, type WitnessedCheckpoint } from './witness/witness-state.js';
