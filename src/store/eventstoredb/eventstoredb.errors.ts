/**
 * Vendor error translation for the EventStoreDB store: no `@eventstore/db-client` or grpc error
 * leaves src/store. Errors are recognised structurally (`type`, grpc `code`), not by
 * `instanceof`, so a second copy of the client package in node_modules cannot defeat the mapping.
 */
import { isMemoryError, MemoryError } from '../../core/index.js';

/** grpc status codes that mean "the server could not be reached in time" (UNAVAILABLE, DEADLINE_EXCEEDED). */
const UNREACHABLE_GRPC_CODES = new Set([14, 4]);

/** db-client `ErrorType`s that say the node is down, overloaded, or not the one to talk to. */
const UNREACHABLE_TYPES = new Set([
  'unavailable',
  'deadline-exceeded',
  'timeout',
  'not-leader',
  'cancelled',
]);

/** What the translation needs to know about the store. */
export interface EsdbErrorScope {
  /** `host:port[,host:port]` of the node(s), never with credentials. */
  readonly endpoint: string;
  /** Secrets that must never appear in a message (the password of the connection string). */
  readonly secrets: readonly string[];
  /** The deadline of each append, named when the server does not answer in time. */
  readonly deadlineMs?: number;
  isClosed(): boolean;
}

const typeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;

/** True for a `WrongExpectedVersionError` (the stream moved since the guard's decision). */
export function isWrongExpectedVersion(error: unknown): boolean {
  return typeOf(error) === 'wrong-expected-version';
}

/** True for a `DeadlineExceededError` or a raw grpc DEADLINE_EXCEEDED (code 4). */
export function isDeadlineExceeded(error: unknown): boolean {
  if (typeOf(error) === 'deadline-exceeded') return true;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : 0;
  return typeOf(error) === undefined && code === 4;
}

/**
 * The server's maximum append size when `error` is its `MaxAppendSizeExceededError` (which
 * carries it), else undefined.
 */
export function maxAppendSizeOf(error: unknown): number | undefined {
  if (typeOf(error) !== 'maximum-append-size-exceeded') return undefined;
  const max = (error as { maxAppendSize?: unknown }).maxAppendSize;
  return typeof max === 'number' && Number.isSafeInteger(max) && max > 0 ? max : undefined;
}

/** True for a `StreamNotFoundError`: a memory nobody has written to reads as empty. */
export function isStreamNotFound(error: unknown): boolean {
  return typeOf(error) === 'stream-not-found';
}

/**
 * True when the node could not be reached: db-client's UnavailableError, DeadlineExceededError
 * and friends, or a raw grpc ServiceError with code 14 / 4 (appends reject with the raw one).
 */
export function isUnreachable(error: unknown): boolean {
  if (isMemoryError(error)) return error.code === 'STORE_UNAVAILABLE';
  const type = typeOf(error);
  if (typeof type === 'string') return UNREACHABLE_TYPES.has(type);
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : 0;
  return typeof code === 'number' && UNREACHABLE_GRPC_CODES.has(code);
}

/** Removes `user:pass@` from anything URL-like, and every known secret. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(/(\/\/)[^/@\s]*@/g, '$1');
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('***');
  return out;
}

/** What a connection string says about where the node is, without credentials. */
export interface ParsedEndpoint {
  /** e.g. `esdb+discover` */
  readonly scheme: string;
  /** e.g. `127.0.0.1:2113` or `node1:2113,node2:2113` */
  readonly endpoint: string;
  /** The password given in the connection string, to be kept out of messages. */
  readonly password: string | undefined;
}

/**
 * Reads scheme, hosts and password from an `esdb://` / `esdb+discover://` connection string by
 * hand: a multi-host string is not a valid WHATWG URL. Hosts without a port get 2113.
 */
export function parseEndpoint(connectionString: string): ParsedEndpoint {
  const match = /^\s*([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(connectionString);
  if (match === null) return { scheme: 'esdb', endpoint: 'unknown endpoint', password: undefined };
  const authority = match[2] ?? '';
  const at = authority.lastIndexOf('@');
  const userInfo = at < 0 ? '' : authority.slice(0, at);
  const hosts = (at < 0 ? authority : authority.slice(at + 1))
    .split(',')
    .filter((host) => host.length > 0)
    .map((host) => (/:\d+$/.test(host) ? host : `${host}:2113`));
  const colon = userInfo.indexOf(':');
  const password = colon < 0 ? undefined : safeDecode(userInfo.slice(colon + 1));
  return {
    scheme: (match[1] ?? 'esdb').toLowerCase(),
    endpoint: hosts.join(',') || 'unknown endpoint',
    password,
  };
}

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const reasonOf = (error: unknown, secrets: readonly string[]): string => {
  const text = error instanceof Error ? error.message : String(error);
  return redact(text, secrets).trim() || 'no reason given';
};

/**
 * Maps anything the client threw to a memledger error: our own errors pass through; after
 * close everything is `STORE_CLOSED`; unreachable nodes are `STORE_UNAVAILABLE` naming the
 * endpoint (a missed deadline names it); an append over the server's size limit is
 * `PAYLOAD_TOO_LARGE` naming the server's limit; the rest is
 * `STORE_FAILED`. The vendor error is kept as `cause`.
 */
export function translateEsdbError(
  error: unknown,
  what: string,
  scope: EsdbErrorScope,
): MemoryError {
  if (isMemoryError(error)) return error;
  const details = { endpoint: scope.endpoint, operation: what };
  if (scope.isClosed()) {
    return new MemoryError(
      'STORE_CLOSED',
      `The EventStoreDB store at ${scope.endpoint} is closed.`,
      {
        details,
        cause: error,
      },
    );
  }
  const reason = reasonOf(error, scope.secrets);
  if (isDeadlineExceeded(error)) {
    const within =
      scope.deadlineMs === undefined ? 'its deadline' : `its deadline of ${scope.deadlineMs} ms`;
    return new MemoryError(
      'STORE_UNAVAILABLE',
      `EventStoreDB at ${scope.endpoint} did not complete ${what} within ${within}; try again (appends are idempotent by event id, so a retry never writes twice).`,
      { details: { ...details, deadlineMs: scope.deadlineMs }, cause: error },
    );
  }
  if (isUnreachable(error)) {
    return new MemoryError(
      'STORE_UNAVAILABLE',
      `EventStoreDB at ${scope.endpoint} is unavailable for ${what}: ${reason}`,
      { details, cause: error },
    );
  }
  if (typeOf(error) === 'maximum-append-size-exceeded') {
    const max = maxAppendSizeOf(error);
    const limit = max === undefined ? '' : ` of ${max.toLocaleString('en-US')} bytes`;
    return new MemoryError(
      'PAYLOAD_TOO_LARGE',
      `EventStoreDB at ${scope.endpoint} refused ${what}: the append is larger than the server's maximum append size${limit}.`,
      { details: { ...details, max }, cause: error },
    );
  }
  if (isWrongExpectedVersion(error)) {
    return new MemoryError(
      'EXPECTED_SEQ_MISMATCH',
      `EventStoreDB at ${scope.endpoint} refused ${what}: the stream is not at the expected revision.`,
      { details, cause: error },
    );
  }
  return new MemoryError(
    'STORE_FAILED',
    `EventStoreDB at ${scope.endpoint} failed ${what}: ${reason}`,
    { details, cause: error },
  );
}
