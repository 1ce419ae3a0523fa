/**
 * Conversions between the generated protobuf messages and the plain data of `types.ts`:
 * stream identifiers, UUIDs, expected revisions, proposed events and recorded events.
 */
import { sharedPb, streamsPb } from './proto.js';
import type { ExpectedRevision, ProposedEvent, RecordedEvent } from './types.js';

type StreamIdentifier = InstanceType<typeof sharedPb.StreamIdentifier>;
type Uuid = InstanceType<typeof sharedPb.UUID>;

/** The part of `AppendReq.ProposedMessage` / `BatchAppendReq.ProposedMessage` we read. */
export interface ProposedMessageLike {
  getId(): Uuid | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}

/** A proposed message that lacks a required metadata key (spec §3.1). */
export class MissingMetadataError extends Error {
  constructor() {
    super('Required metadata properties are missing: type, content-type');
  }
}

/** Stream names travel as UTF-8 bytes (`shared.proto` StreamIdentifier). */
export function streamNameOf(identifier: StreamIdentifier | undefined): string {
  return Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
}

/** Builds a StreamIdentifier message for a stream name. */
export function toStreamIdentifier(streamName: string): StreamIdentifier {
  return new sharedPb.StreamIdentifier().setStreamName(Buffer.from(streamName, 'utf8'));
}

/**
 * Reads a UUID in either wire form, normalised to lower-case text. The structured form holds
 * bytes 0-7 and 8-15 of the RFC 4122 byte string as signed int64 decimal strings.
 */
export function parseUuid(uuid: Uuid | undefined): string {
  if (uuid === undefined) return '';
  if (uuid.hasStructured()) {
    const structured = uuid.getStructured()!;
    const hex =
      BigInt.asUintN(64, BigInt(structured.getMostSignificantBits()))
        .toString(16)
        .padStart(16, '0') +
      BigInt.asUintN(64, BigInt(structured.getLeastSignificantBits()))
        .toString(16)
        .padStart(16, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return uuid.getString().toLowerCase();
}

/** Writes a UUID in the form the read request asked for (`uuid_option`). */
export function toUuid(id: string, structured: boolean): Uuid {
  const uuid = new sharedPb.UUID();
  if (!structured) return uuid.setString(id);
  const hex = id.replaceAll('-', '');
  const signed = (part: string): string => BigInt.asIntN(64, BigInt(`0x${part}`)).toString();
  return uuid.setStructured(
    new sharedPb.UUID.Structured()
      .setMostSignificantBits(signed(hex.slice(0, 16)))
      .setLeastSignificantBits(signed(hex.slice(16, 32))),
  );
}

/** The expected-revision oneof as Append/Delete/Tombstone (and BatchAppend) carry it. */
export interface ExpectedRevisionOptions {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
}

/**
 * Decodes the expected-revision oneof. `exactRevision` reads the `revision` (or BatchAppend
 * `stream_position`) field; an unset oneof means `any`, as the server's default.
 */
export function toExpectedRevision(
  options: ExpectedRevisionOptions,
  exactRevision: () => string | undefined,
): ExpectedRevision {
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  if (options.hasAny()) return { kind: 'any' };
  const revision = exactRevision();
  return revision === undefined ? { kind: 'any' } : { kind: 'exact', revision: BigInt(revision) };
}

/**
 * Validates and normalises a proposed message. The server keeps only the `type` and whether
 * the content type is exactly JSON; both keys are required (`MetadataHelpers.cs:21-33`).
 */
export function parseProposedMessage(message: ProposedMessageLike): ProposedEvent {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  if (type === undefined || contentType === undefined) throw new MissingMetadataError();
  return {
    id: parseUuid(message.getId()),
    type,
    isJson: contentType === 'application/json',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

/**
 * Size an event counts for against the max append size, as EventStoreDB 24.10 (the version the
 * fake advertises) counts it: `Event.SizeOnDisk` reads `data?.Length ?? 0 + metadata?.Length ??
 * 0 + eventType.Length * 2`, and since `+` binds tighter than `??` that is the data's length
 * alone (spec §6; the gRPC message around it, the id and the metadata map never count). The
 * client's own test expects 30,000 small events to fit in 1 MiB and 40,000 not to.
 */
export function appendSizeOf(event: ProposedEvent): number {
  return event.data.length;
}

/** The `RecordedEvent` message of a record. */
function toRecordedEvent(
  record: RecordedEvent,
  structuredUuid: boolean,
): InstanceType<typeof streamsPb.ReadResp.ReadEvent.RecordedEvent> {
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(toUuid(record.id, structuredUuid))
    .setStreamIdentifier(toStreamIdentifier(record.streamName))
    .setStreamRevision(record.revision.toString())
    .setPreparePosition(record.position.toString())
    .setCommitPosition(record.position.toString())
    .setData(record.data)
    .setCustomMetadata(record.customMetadata);
  recorded
    .getMetadataMap()
    .set('type', record.type)
    .set('created', record.created.toString())
    .set('content-type', record.isJson ? 'application/json' : 'application/octet-stream');
  return recorded;
}

/**
 * A `ReadResp` carrying one event, shaped like `Streams.Read.cs:384-426`. With `resolved`, the
 * record is a link: `event` is its target (unset when the target is missing) and `link` the
 * link itself; the `ReadEvent`'s position is the link's either way.
 */
export function toEventResponse(
  record: RecordedEvent,
  structuredUuid: boolean,
  resolved?: { readonly target: RecordedEvent | undefined },
): InstanceType<typeof streamsPb.ReadResp> {
  const readEvent = new streamsPb.ReadResp.ReadEvent().setCommitPosition(
    record.position.toString(),
  );
  if (resolved === undefined) readEvent.setEvent(toRecordedEvent(record, structuredUuid));
  else {
    readEvent.setLink(toRecordedEvent(record, structuredUuid));
    if (resolved.target !== undefined) {
      readEvent.setEvent(toRecordedEvent(resolved.target, structuredUuid));
    }
  }
  return new streamsPb.ReadResp().setEvent(readEvent);
}
