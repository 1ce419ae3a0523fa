/**
 * Signing checkpoints (C2SP tlog-checkpoint in a signed-note) and cosigning them (C2SP
 * tlog-cosignature v1), with the one rule a log must never break: no checkpoint is signed that
 * is inconsistent with one signed before. The guard checks the RFC 9162 consistency proof from
 * the last signed checkpoint with the verifier's own code (run synchronously with node:crypto),
 * not with the code that built the proof.
 */
import { MemoryError } from '../core/index.js';
import {
  SIGNATURE_TYPE,
  consistencySteps,
  cosignatureMessage,
  formatCheckpoint,
  formatNote,
  isVerifyError,
  runHashSteps,
  signatureLine,
} from '../verify/index.js';
import type { NoteSigner } from './note-signer.js';
import { nodeHashOf } from './tree-hash.js';

/** A tree head: size and root. */
export interface TreeHead {
  readonly size: number;
  readonly root: Uint8Array;
}

/** What to sign next, and what it must extend. */
export interface NextCheckpoint {
  readonly origin: string;
  readonly head: TreeHead;
  /** The last checkpoint signed for this origin, or null for the first one. */
  readonly last: TreeHead | null;
  /** The consistency path from `last` to `head` (empty when there is no last one). */
  readonly proof: readonly Uint8Array[];
}

/**
 * Throws `CHECKPOINT_INCONSISTENT`, saying why, unless `proof` proves that `head` extends
 * `last`: a smaller size, another root at the same size, or a path that does not verify.
 */
export function assertExtends(
  last: TreeHead | null,
  head: TreeHead,
  proof: readonly Uint8Array[],
): void {
  if (last === null) return;
  try {
    runHashSteps(
      consistencySteps({ from: last.size, to: head.size, path: proof }, last.root, head.root),
      nodeHashOf,
    );
  } catch (error) {
    if (!isVerifyError(error)) throw error;
    throw new MemoryError(
      'CHECKPOINT_INCONSISTENT',
      `Refusing to sign a checkpoint at size ${head.size} that does not extend the one signed at size ${last.size}: ${error.message}`,
      { details: { lastSize: last.size, size: head.size }, cause: error },
    );
  }
}

/**
 * The signed note of the next checkpoint of `next.origin`, after {@link assertExtends}. The
 * signer must be a log key (type 0x01).
 */
export function signCheckpoint(signer: NoteSigner, next: NextCheckpoint): string {
  if (signer.type !== SIGNATURE_TYPE.ed25519) {
    throw new MemoryError(
      'LOG_KEY_MALFORMED',
      `Key ${signer.name}+${signer.keyId} is a witness key, not a log key.`,
    );
  }
  assertExtends(next.last, next.head, next.proof);
  const text = formatCheckpoint({
    origin: next.origin,
    size: next.head.size,
    root: next.head.root,
    extensions: [],
  });
  return formatNote(text, [
    signatureLine(signer.name, signer.keyId, signer.sign(Buffer.from(text, 'utf8'))),
  ]);
}

/**
 * A cosignature/v1 line (no newline) by a witness key (type 0x04) over the checkpoint `text`
 * at `timestamp` (POSIX seconds): key id, the timestamp as 8 big-endian bytes, the signature.
 */
export function cosignatureLine(signer: NoteSigner, text: string, timestamp: number): string {
  if (signer.type !== SIGNATURE_TYPE.cosignature) {
    throw new MemoryError(
      'LOG_KEY_MALFORMED',
      `Key ${signer.name}+${signer.keyId} is a log key, not a witness key.`,
    );
  }
  if (!Number.isSafeInteger(timestamp) || timestamp <= 0) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `A cosignature timestamp must be a positive integer, not ${timestamp}.`,
    );
  }
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(timestamp));
  const signature = signer.sign(Buffer.from(cosignatureMessage(timestamp, text), 'utf8'));
  return signatureLine(signer.name, signer.keyId, Buffer.concat([time, signature]));
}
