/**
 * `memledger/verify`: check memledger's proofs and signed checkpoints without trusting the
 * server — RFC 9162 inclusion and consistency proofs, C2SP signed notes, checkpoints and
 * witness cosignatures, and the canonical leaf `memledger/leaf/v1`. WebCrypto only: the same
 * code runs in Node 20+ and in browsers.
 */
export * from './verify/index.js';
