/**
 * The canonical leaf `memledger/leaf/v1` (docs/leaf-v1.md): the UTF-8 bytes of the line
 * `memledger/leaf/v1`, a newline, and the RFC 8785 canonical JSON of
 * `{"memory", "seq", "id", "type", "version", "body"}`, where `body` is the event's stored
 * fields as the store keeps them, without `seq`, `id` and `kind` (sealed content stays sealed).
 */
import { equalBytes, fromUtf8, utf8 } from './bytes.js';
import { canonicalJson } from './canonical-json.js';
import { leafHash } from './hashing.js';
import { VerifyError } from './verify-error.js';

/** The first line of every v1 leaf, newline included: domain separation and version. */
export const LEAF_V1_HEADER = 'memledger/leaf/v1\n';

/** The wire types of memledger's event kinds. */
export const LEAF_EVENT_TYPES = ['Message', 'Document', 'Recall', 'Deletion', 'Erasure'] as const;

/** An event's wire type. */
export type LeafEventType = (typeof LEAF_EVENT_TYPES)[number];

/** Everything a v1 leaf binds. */
export interface LeafInput {
  /** The memory id (1 to 128 of `A-Z a-z 0-9 . _ -`). */
  readonly memory: string;
  /** The event's seq: its index in the tree. */
  readonly seq: number;
  /** The event id. */
  readonly id: string;
  readonly type: LeafEventType;
  /** The schema version the event was stored in (1 for an event stored without one). */
  readonly version: number;
  /** The stored fields without `seq`, `id` and `kind` (see {@link leafBody}). */
  readonly body: Readonly<Record<string, unknown>>;
}

const MEMORY_ID = /^[A-Za-z0-9._-]{1,128}$/;
const NOT_IN_BODY = ['seq', 'id', 'kind'] as const;

/** The leaf body of an event's stored fields: all of them except `seq`, `id` and `kind`. */
export function leafBody(stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (!(NOT_IN_BODY as readonly string[]).includes(name)) body[name] = value;
  }
  return body;
}

/** The text of a v1 leaf (its bytes are the UTF-8 of this text). Throws `LEAF_INVALID`. */
export function leafText(input: LeafInput): string {
  checkFields(input);
  const { body } = input;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    invalid('body', 'must be a JSON object');
  }
  const carried = NOT_IN_BODY.filter(
    (name) => Object.hasOwn(body, name) && body[name] !== undefined,
  );
  if (carried.length > 0)
    invalid('body', `carries ${carried.join(', ')}, which the leaf holds outside it`);
  return composeLeaf(input, canonicalJson(body, '$.body'));
}

function checkFields({ memory, seq, id, type, version }: Omit<LeafInput, 'body'>): void {
  if (typeof memory !== 'string' || !MEMORY_ID.test(memory)) {
    invalid(
      'memory',
      `${JSON.stringify(memory)} is not a memory id (1 to 128 of A-Z a-z 0-9 . _ -)`,
    );
  }
  if (!Number.isSafeInteger(seq) || seq < 0)
    invalid('seq', `${String(seq)} is not a non-negative integer`);
  if (typeof id !== 'string' || id.length === 0) invalid('id', 'must be a non-empty string');
  if (!(LEAF_EVENT_TYPES as readonly string[]).includes(type)) {
    invalid('type', `${JSON.stringify(type)} is not one of ${LEAF_EVENT_TYPES.join(', ')}`);
  }
  if (!Number.isSafeInteger(version) || version < 1) {
    invalid('version', `${String(version)} is not a positive integer`);
  }
}

/** The leaf's canonical JSON, its members in RFC 8785 order (`body` first), after the header. */
function composeLeaf(fields: Omit<LeafInput, 'body'>, canonicalBody: string): string {
  const { memory, seq, id, type, version } = fields;
  return (
    `${LEAF_V1_HEADER}{"body":${canonicalBody},"id":${canonicalJson(id, '$.id')}` +
    `,"memory":${JSON.stringify(memory)},"seq":${seq},"type":"${type}","version":${version}}`
  );
}

/** The bytes of a v1 leaf. Throws `LEAF_INVALID`. */
export function leafBytes(input: LeafInput): Uint8Array {
  return utf8(leafText(input));
}

/** The RFC 9162 leaf hash of a v1 leaf: `SHA-256(0x00 || leaf bytes)`. */
export function eventLeafHash(input: LeafInput): Promise<Uint8Array> {
  return leafHash(leafBytes(input));
}

function invalid(field: string, why: string): never {
  throw new VerifyError('LEAF_INVALID', `Leaf field ${field}: ${why}.`, { field });
}

/**
 * Reads leaf bytes back into what they bind, refusing (`LEAF_INVALID`) bytes that are not a v1
 * leaf in its one canonical encoding: another header, JSON that does not parse or has other
 * members, or any other spelling of the same value (re-encoding must give the same bytes).
 */
export function parseLeaf(bytes: Uint8Array): LeafInput {
  const text = fromUtf8(bytes, 'The leaf');
  if (!text.startsWith(LEAF_V1_HEADER)) {
    throw new VerifyError(
      'LEAF_INVALID',
      'The leaf does not start with the line memledger/leaf/v1.',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text.slice(LEAF_V1_HEADER.length));
  } catch {
    throw new VerifyError('LEAF_INVALID', 'The leaf is not memledger/leaf/v1 followed by JSON.');
  }
  const members =
    typeof value === 'object' && value !== null ? Object.keys(value).sort().join(',') : '';
  if (members !== 'body,id,memory,seq,type,version') {
    throw new VerifyError(
      'LEAF_INVALID',
      `The leaf's JSON has members ${members || 'none'}, not body, id, memory, seq, type and version.`,
    );
  }
  const input = value as LeafInput;
  if (!equalBytes(leafBytes(input), bytes)) {
    throw new VerifyError('LEAF_INVALID', 'The leaf is not in its canonical encoding (RFC 8785).');
  }
  return input;
}
