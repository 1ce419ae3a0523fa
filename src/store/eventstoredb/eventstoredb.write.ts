/**
 * Writing what the append guard decided (eventstoredb.append.ts) to the stream.
 *
 * The server has its own idempotency: an append whose event ids already sit right after
 * revision r is answered "success" without writing, with the same reply as a fresh write. So the
 * EventStoreDB event id is a *content address*, not our id: the first 128 bits of a SHA-256 of
 * the event's type, schema version and data (our id included), shaped as a UUID (version 8).
 * A "success" then means the stream holds exactly the events decided, at exactly the revisions
 * decided — written now, or by an earlier try or a peer with the same content — and the index
 * records them without reading them back. A peer that stored one of our ids with *other*
 * content stored another event id, so the server answers WrongExpectedVersion and the guard
 * decides again on the log that now holds it: invariant 9 then answers with the stored event,
 * or ID_CONFLICT. Reads take our id from the data, never from the event id, so streams written
 * by 0.2.0 (event id = our id) read and dedupe as before.
 */
import { hash } from 'node:crypto';
import { jsonEvent, NO_STREAM } from '@eventstore/db-client';
import { EVENT_TYPE_ALLOWANCE, type Sequenced } from '../../core/index.js';
import { encodeEvent } from '../codec.js';
import { idOfHex } from '../../db/encodings.js';
import { isWrongExpectedVersion, maxAppendSizeOf } from './eventstoredb.errors.js';
import { fail, type EsdbStream } from './eventstoredb.reads.js';

/** Appends at `lastSeq`; false when the stream moved (WrongExpectedVersion). */
export async function write(
  stream: EsdbStream,
  toWrite: readonly Sequenced[],
  lastSeq: number | null,
): Promise<boolean> {
  stream.context.ensureOpen();
  const proposed = toWrite.map((event) => {
    const { type, version, data } = encodeEvent(event);
    return jsonEvent({
      id: contentEventId(type, version, data),
      type,
      data,
      metadata: metadataOf(version),
    });
  });
  try {
    await stream.context.client.appendToStream(stream.streamName, proposed, {
      expectedRevision: lastSeq === null ? NO_STREAM : BigInt(lastSeq),
      deadline: stream.context.deadlineMs,
    });
    return true;
  } catch (error) {
    if (isWrongExpectedVersion(error)) return false;
    learnMaxAppendSize(stream, maxAppendSizeOf(error));
    throw fail(stream, error, 'append');
  }
}

/**
 * The server told its maximum append size by refusing one: a smaller one than configured becomes
 * the store's limit, so later appends (and the CLI import's batches) are sized for it.
 */
function learnMaxAppendSize(stream: EsdbStream, max: number | undefined): void {
  const { context } = stream;
  if (max === undefined || max >= context.limits.appendBytes) return;
  context.limits = {
    ...context.limits,
    appendBytes: max,
    eventBytes: Math.min(context.limits.eventBytes, max - EVENT_TYPE_ALLOWANCE),
  };
}

/**
 * The EventStoreDB event id of an event: a UUID (version 8, RFC 9562) made of the first 128 bits
 * of SHA-256 over its type, schema version and data. Equal content, equal id; any difference in
 * what is stored, another id.
 */
export function contentEventId(
  type: string,
  version: number,
  data: Readonly<Record<string, unknown>>,
): string {
  // The same JSON the client sends (it stringifies `data` itself, and takes no string instead).
  const digest = hash('sha256', `${type}\n${version}\n${JSON.stringify(data)}`, 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  return idOfHex(digest.toString('hex', 0, 16));
}

/**
 * The metadata of an event of schema `version`, `{"schemaVersion":n}`, as the UTF-8 bytes the
 * client would make of the object: it sends a Uint8Array as it is, so the bytes are made once
 * per version rather than stringified and base64-encoded per event. Never mutated.
 */
function metadataOf(version: number): Uint8Array {
  let bytes = METADATA.get(version);
  if (bytes === undefined) {
    const utf8 = Buffer.from(JSON.stringify({ schemaVersion: version }), 'utf8');
    // A plain Uint8Array: the client copies a Buffer, and tests `constructor === Uint8Array`.
    bytes = new Uint8Array(utf8.buffer.slice(utf8.byteOffset, utf8.byteOffset + utf8.length));
    METADATA.set(version, bytes);
  }
  return bytes;
}

const METADATA = new Map<number, Uint8Array>();
