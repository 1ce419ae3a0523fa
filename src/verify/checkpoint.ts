/**
 * C2SP tlog-checkpoint: the note text `<origin>\n<size>\n<base64 root>\n[extension lines]`, and
 * the check a client makes of a signed checkpoint: the log's own signature, the origin it
 * expects, and a quorum of trusted witness cosignatures (C2SP tlog-cosignature).
 */
import { checkHash, hashFromBase64, toBase64 } from './bytes.js';
import { openNote, type VerifiedSignature } from './signed-note.js';
import { VerifyError } from './verify-error.js';
import { SIGNATURE_TYPE, type VerifierKey } from './vkey.js';

/** A tree head: which log, how many leaves, their root. */
export interface Checkpoint {
  /** The log's identity; memledger's is `<log name>/<memory id>`. */
  readonly origin: string;
  readonly size: number;
  readonly root: Uint8Array;
  /** Opaque extra lines (memledger writes none). */
  readonly extensions: readonly string[];
}

/** Who must have signed a checkpoint for a client to trust it. */
export interface CheckpointTrust {
  /** The log's key (type 0x01): its signature is required. */
  readonly log: VerifierKey;
  /** Trusted witnesses (type 0x04); signatures by any other key are ignored. */
  readonly witnesses?: readonly VerifierKey[];
  /**
   * How many distinct trusted witnesses must have cosigned.
   * @defaultValue all of `witnesses`
   */
  readonly quorum?: number;
  /** The origin the checkpoint must carry. */
  readonly origin?: string;
}

/** A checkpoint whose signatures were verified. */
export interface VerifiedCheckpoint extends Checkpoint {
  /** The signed text (the checkpoint body). */
  readonly text: string;
  /** The trusted witnesses that cosigned, with their timestamps. */
  readonly cosignatures: readonly VerifiedSignature[];
}

const SIZE = /^(?:0|[1-9][0-9]*)$/;

/** Reads a checkpoint body, refusing (`CHECKPOINT_MALFORMED`, naming the rule) anything else. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) malformed('it does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) malformed(`it has ${lines.length} lines, not at least 3`);
  const empty = lines.findIndex((line) => line.length === 0);
  if (empty >= 0) malformed(`line ${empty + 1} is empty`);
  const [origin, sizeText, rootText, ...extensions] = lines as [
    string,
    string,
    string,
    ...string[],
  ];
  const size = Number(sizeText);
  if (!SIZE.test(sizeText) || !Number.isSafeInteger(size)) {
    malformed(`the size ${JSON.stringify(sizeText)} is not a decimal without leading zeros`);
  }
  let root: Uint8Array;
  try {
    root = hashFromBase64(rootText, 'root');
  } catch {
    return malformed(`the root ${JSON.stringify(rootText)} is not a base64 32-byte hash`);
  }
  return { origin, size, root, extensions };
}

/** The body of a checkpoint, as {@link parseCheckpoint} reads it back. */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, root, extensions } = checkpoint;
  for (const line of [origin, ...extensions]) {
    if (line.length === 0 || line.includes('\n'))
      malformed(`line ${JSON.stringify(line)} is not one non-empty line`);
  }
  if (!Number.isSafeInteger(size) || size < 0) malformed(`the size ${size} is not a tree size`);
  checkHash(root, 'root');
  return [origin, String(size), toBase64(root), ...extensions].map((line) => `${line}\n`).join('');
}

/**
 * Verifies a signed checkpoint note: the log key's signature (required; a bad one by any
 * trusted key rejects the note), the origin when `trust.origin` is set (`CHECKPOINT_MISMATCH`),
 * and at least `trust.quorum` distinct trusted witnesses' cosignatures (`QUORUM_NOT_MET`).
 * Signatures by unknown keys are ignored.
 */
export async function verifyCheckpoint(
  note: string,
  trust: CheckpointTrust,
): Promise<VerifiedCheckpoint> {
  const witnesses = trust.witnesses ?? [];
  const quorum = trust.quorum ?? witnesses.length;
  checkTrust(trust.log, witnesses, quorum);
  const opened = await openNote(note, [trust.log, ...witnesses]);
  if (!opened.verified.some((signature) => signature.key === trust.log)) {
    throw new VerifyError(
      'NOTE_UNVERIFIED',
      `The checkpoint is not signed by the log key ${trust.log.name}+${trust.log.keyId}.`,
    );
  }
  const checkpoint = parseCheckpoint(opened.text);
  if (trust.origin !== undefined && checkpoint.origin !== trust.origin) {
    throw new VerifyError(
      'CHECKPOINT_MISMATCH',
      `The checkpoint is for origin ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(trust.origin)}.`,
      { origin: checkpoint.origin, expected: trust.origin },
    );
  }
  const cosignatures = opened.verified.filter((s) => s.key.type === SIGNATURE_TYPE.cosignature);
  const distinct = new Set(cosignatures.map((s) => toBase64(s.key.publicKey)));
  if (distinct.size < quorum) {
    throw new VerifyError(
      'QUORUM_NOT_MET',
      `${distinct.size} of the trusted witnesses cosigned the checkpoint; ${quorum} are required.`,
      { cosigned: distinct.size, quorum },
    );
  }
  return { ...checkpoint, text: opened.text, cosignatures };
}

function checkTrust(log: VerifierKey, witnesses: readonly VerifierKey[], quorum: number): void {
  if (log.type !== SIGNATURE_TYPE.ed25519) {
    throw new VerifyError(
      'VKEY_INVALID',
      `The log key ${log.name}+${log.keyId} is not an Ed25519 note key (0x01).`,
    );
  }
  const wrong = witnesses.find((key) => key.type !== SIGNATURE_TYPE.cosignature);
  if (wrong !== undefined) {
    throw new VerifyError(
      'VKEY_INVALID',
      `Witness key ${wrong.name}+${wrong.keyId} is not a cosignature/v1 key (0x04).`,
    );
  }
  if (!Number.isSafeInteger(quorum) || quorum < 0 || quorum > witnesses.length) {
    throw new VerifyError(
      'QUORUM_NOT_MET',
      `A quorum of ${quorum} cannot be met by ${witnesses.length} trusted witnesses.`,
      { quorum, witnesses: witnesses.length },
    );
  }
}

function malformed(why: string): never {
  throw new VerifyError('CHECKPOINT_MALFORMED', `The checkpoint is malformed: ${why}.`);
}
