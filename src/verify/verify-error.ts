/**
 * The one error type of `memledger/verify`. The verifier runs in browsers as it is, so it has its
 * own error class instead of the core's `MemoryError`; the codes are stable strings a program
 * can act on, the message is one sentence for people.
 */

/** Every code a verification failure carries. */
export const VERIFY_ERROR_CODES = [
  // an input is not what its format says: base64, hex, UTF-8, a hash that is not 32 bytes
  'ENCODING_INVALID',
  // a Merkle proof that does not prove what it claims (RFC 9162 §2.1.3.2, §2.1.4.2)
  'INCLUSION_PROOF_INVALID',
  'CONSISTENCY_PROOF_INVALID',
  // C2SP signed-note: a note that breaks the format, one no trusted key signed, a bad signature
  'NOTE_MALFORMED',
  'NOTE_UNVERIFIED',
  'SIGNATURE_INVALID',
  // a verifier key line that is not `<name>+<hex key id>+<base64 key>` for a supported type
  'VKEY_INVALID',
  // C2SP tlog-checkpoint: a note body that is not a checkpoint, or not the one expected
  'CHECKPOINT_MALFORMED',
  'CHECKPOINT_MISMATCH',
  // fewer trusted witnesses cosigned than the quorum asks
  'QUORUM_NOT_MET',
  // a leaf input that memledger/leaf/v1 cannot encode (includes JSON that RFC 8785 refuses)
  'LEAF_INVALID',
] as const;

/** A verification failure code. */
export type VerifyErrorCode = (typeof VERIFY_ERROR_CODES)[number];

/** A verification failure: a stable `code`, a one-sentence message, structured details. */
export class VerifyError extends Error {
  override readonly name = 'VerifyError';
  readonly code: VerifyErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: VerifyErrorCode,
    message: string,
    details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.code = code;
    this.details = Object.freeze({ ...details });
  }
}

/**
 * Structural guard: true when `error` is a verification failure, of `code` when one is given.
 * Structural, so it holds for a copy of the module loaded twice (a page and a worker).
 */
export function isVerifyError(error: unknown, code?: VerifyErrorCode): error is VerifyError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { name?: unknown; code?: unknown };
  if (candidate.name !== 'VerifyError' || typeof candidate.code !== 'string') return false;
  return code === undefined || candidate.code === code;
}
