/**
 * The one error type of memledger. Every failure a caller can act on carries a string-literal
 * `code` (stable, for programs and for the HTTP error filter), a one-sentence message for
 * people, structured `details`, and the underlying `cause` when an adapter translated one.
 */

/** Every error code memledger raises, grouped by what the caller can do about it. */
export const MEMORY_ERROR_CODES = [
  // bad input: fix the request
  'VALIDATION_FAILED',
  'INVALID_MEMORY_ID',
  'PAYLOAD_TOO_LARGE',
  'EVENT_TOO_LARGE',
  // the append guard: the request contradicts the log
  'ALREADY_SEQUENCED',
  'ID_CONFLICT',
  'DELETION_TARGET_UNKNOWN',
  'DELETION_TARGET_NOT_CONTENT',
  'ALREADY_DELETED',
  'RECALL_TARGET_UNKNOWN',
  'RECALL_TARGET_NOT_CONTENT',
  'RECALL_TARGET_DELETED',
  'ERASURE_TARGET_UNKNOWN',
  'ERASURE_TARGET_NOT_CONTENT',
  'ERASURE_TARGET_NOT_DELETED',
  'ALREADY_ERASED',
  // erasure needs content stored encrypted (a key store); this log or item has none
  'ERASURE_UNAVAILABLE',
  // concurrency: the log moved; read again and retry
  'EXPECTED_SEQ_MISMATCH',
  'APPEND_CONFLICT',
  // lookups
  'EVENT_NOT_FOUND',
  // access: no valid credential, a right the principal was not granted, an unknown access key
  'UNAUTHORIZED',
  'FORBIDDEN',
  'ACCESS_KEY_UNKNOWN',
  // the log itself is not what memledger wrote
  'REPLAY_ORDER',
  'LOG_INVARIANT_VIOLATED',
  'EVENT_DECODE_FAILED',
  // a stored event written by a newer memledger (a kind or schema version this code cannot read)
  'EVENT_VERSION_UNSUPPORTED',
  // the key store: wrong master key, missing file, or a sealed item whose key is gone unerased
  'KEY_STORE_LOCKED',
  'KEY_STORE_MISSING',
  'KEY_MISSING',
  // a plugged-in retriever that did not answer within `retrieverTimeoutMs`
  'RETRIEVER_TIMEOUT',
  // the embedding provider: down, overloaded or timing out after its retries (retry later)
  'EMBEDDER_UNAVAILABLE',
  // the embedding provider answered, but not with what was asked (shape, count, refusal)
  'EMBEDDER_FAILED',
  // the provider's vectors do not have the configured dimensions (never truncated or padded)
  'EMBEDDING_DIMENSIONS_MISMATCH',
  // the verifiable log: a tree node not stored, a tree size past the log's head, a checkpoint
  // that would contradict an earlier one, no signing key configured, the log's signing key file,
  // a witness's or monitor's state file, a server that gave no checkpoint or proof
  'TREE_NODE_MISSING',
  'TREE_SIZE_PAST_HEAD',
  'CHECKPOINT_INCONSISTENT',
  'LOG_KEY_NOT_CONFIGURED',
  'LOG_KEY_MISSING',
  'LOG_KEY_UNREADABLE',
  'LOG_KEY_INSECURE',
  'LOG_KEY_MALFORMED',
  'LOG_KEY_EXISTS',
  'TLOG_STATE_INVALID',
  'CHECKPOINT_UNAVAILABLE',
  // infrastructure
  'STORE_UNAVAILABLE',
  'STORE_CLOSED',
  'STORE_FAILED',
] as const;

/** A memledger error code. */
export type MemoryErrorCode = (typeof MEMORY_ERROR_CODES)[number];

/** One failing field of a validation: the dotted path and the rule it broke. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** Options of {@link MemoryError}. */
export interface MemoryErrorOptions {
  /** Structured facts about the failure (ids, expected and actual values). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Every failing field, for `VALIDATION_FAILED`. */
  readonly issues?: readonly ValidationIssue[];
  /** The error this one translates (vendor or driver error). */
  readonly cause?: unknown;
}

/** The base error of memledger: a stable `code`, a one-sentence message, structured details. */
export class MemoryError<C extends MemoryErrorCode = MemoryErrorCode> extends Error {
  override readonly name = 'MemoryError';
  readonly code: C;
  readonly details: Readonly<Record<string, unknown>>;
  readonly issues: readonly ValidationIssue[];

  constructor(code: C, message: string, options: MemoryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = Object.freeze({ ...options.details });
    this.issues = Object.freeze([...(options.issues ?? [])]);
  }
}

/**
 * Structural guard: true when `error` is a memledger error, of `code` when one is given.
 * Structural (not `instanceof`) so it holds across duplicated package copies.
 */
export function isMemoryError<C extends MemoryErrorCode>(
  error: unknown,
  code?: C,
): error is MemoryError<C> {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { name?: unknown; code?: unknown };
  if (candidate.name !== 'MemoryError' || typeof candidate.code !== 'string') return false;
  return code === undefined || candidate.code === code;
}

/** Exhaustiveness check for `switch` statements over closed unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new MemoryError('VALIDATION_FAILED', `Unexpected ${what}: ${JSON.stringify(value)}.`);
}
