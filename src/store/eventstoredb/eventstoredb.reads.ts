/**
 * What every part of the EventStoreDB store shares (client, names, error scope), and the reads
 * of one memory's stream: a revision range, one revision, the last revision. The stream
 * revision is the seq, so every read here is addressed by seq.
 */
import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  type EventStoreDBClient,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { MemoryError, UNVERSIONED, type Sequenced } from '../../core/index.js';
import type { AppendLimits } from '../append-input.js';
import { decodeEvent, decodeTrustedFields, storedFormOf } from '../codec.js';
import type { ProjectedEvent } from '../projection.port.js';
import {
  isStreamNotFound,
  translateEsdbError,
  type EsdbErrorScope,
} from './eventstoredb.errors.js';

/** The store-wide state every memory's log works with. */
export interface EsdbContext extends EsdbErrorScope {
  readonly client: EventStoreDBClient;
  /** Streams are `${streamPrefix}${memoryId}`. */
  readonly streamPrefix: string;
  readonly maxAppendAttempts: number;
  readonly resubscribeDelayMs: number;
  /** Deadline of each append (`EventStoreDbStoreExtra.deadlineMs`). */
  readonly deadlineMs: number;
  /** What an append may hold; lowered when the server says its maximum append size is smaller. */
  limits: AppendLimits;
  /** Cancels every open subscription; `close()` runs them. */
  readonly closers: Set<() => void>;
  /** Throws `STORE_CLOSED` once the store is closed. */
  ensureOpen(): void;
}

/** One memory's stream, as the reads and the guard see it. */
export interface EsdbStream {
  readonly context: EsdbContext;
  readonly memoryId: string;
  readonly streamName: string;
  /** Where decode errors say the event was read. */
  readonly where: string;
}

/** Describes a memory's stream for {@link EsdbStream} users. */
export function streamOf(context: EsdbContext, memoryId: string): EsdbStream {
  const streamName = `${context.streamPrefix}${memoryId}`;
  return { context, memoryId, streamName, where: `EventStoreDB stream ${streamName}` };
}

/** Translates a vendor error for an operation on this memory. */
export function fail(stream: EsdbStream, error: unknown, what: string): MemoryError {
  return translateEsdbError(error, `${what} on memory ${stream.memoryId}`, stream.context);
}

/** Decodes one stored event; its revision is its seq. */
export function decodeResolved(stream: EsdbStream, resolved: ResolvedEvent): Sequenced {
  const recorded = resolved.event;
  if (recorded === undefined) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `A record of ${stream.where} is a link without its event.`,
      { details: { where: stream.where } },
    );
  }
  return decodeEvent(
    recorded.type,
    recorded.data,
    Number(recorded.revision),
    stream.where,
    schemaVersionOf(recorded.metadata),
  );
}

/**
 * One stored event decoded without validating it again (upcast only): for catch-ups over events
 * memledger appended, and so validated, itself.
 */
export function decodeTrustedResolved(stream: EsdbStream, resolved: ResolvedEvent): Sequenced {
  const recorded = resolved.event;
  if (recorded === undefined) return decodeResolved(stream, resolved); // names the broken link
  const data = recorded.data;
  if (typeof data !== 'object' || data === null || data instanceof Uint8Array)
    return decodeResolved(stream, resolved);
  return decodeTrustedFields(
    recorded.type,
    data as Record<string, unknown>,
    Number(recorded.revision),
    stream.where,
    schemaVersionOf(recorded.metadata),
  );
}

/** One stored event as projections receive it: decoded, and in its stored form. */
export function projectResolved(stream: EsdbStream, resolved: ResolvedEvent): ProjectedEvent {
  return projectWith(decodeResolved(stream, resolved), resolved);
}

/** The same for a catch-up: the event decoded without validating it again (upcast only). */
export function projectTrustedResolved(
  stream: EsdbStream,
  resolved: ResolvedEvent,
): ProjectedEvent {
  return projectWith(decodeTrustedResolved(stream, resolved), resolved);
}

/** `event` beside the stored form of the recorded event it was decoded from. */
function projectWith(event: Sequenced, resolved: ResolvedEvent): ProjectedEvent {
  const recorded = resolved.event!;
  const version = schemaVersionOf(recorded.metadata);
  return {
    event,
    stored: storedFormOf(recorded.type, typeof version === 'number' ? version : 0, recorded.data),
  };
}

/**
 * The event schema version an event's metadata records (`schemaVersion`); memledger 0.1.0
 * wrote no metadata, so an event without one is version 1.
 */
export function schemaVersionOf(metadata: unknown): unknown {
  if (typeof metadata !== 'object' || metadata === null || metadata instanceof Uint8Array) {
    return UNVERSIONED;
  }
  return (metadata as { schemaVersion?: unknown }).schemaVersion ?? UNVERSIONED;
}

/** A revision range to read: `count` events from `from`, walking in `direction`. */
export interface RevisionRange {
  readonly from: number;
  readonly count: number;
  readonly direction: 'forwards' | 'backwards';
}

/**
 * Reads and decodes a range. A missing stream reads as empty. Stopping early (a `break` in the
 * caller's loop) cancels the gRPC call instead of leaving it streaming.
 */
export async function* readRange<T = Sequenced>(
  stream: EsdbStream,
  range: RevisionRange,
  decode: (stream: EsdbStream, resolved: ResolvedEvent) => T = decodeResolved as never,
): AsyncGenerator<T> {
  if (range.count <= 0) return;
  stream.context.ensureOpen();
  const read = stream.context.client.readStream(stream.streamName, {
    fromRevision: BigInt(range.from),
    direction: range.direction === 'forwards' ? FORWARDS : BACKWARDS,
    maxCount: range.count,
  });
  let drained = false;
  try {
    for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
      yield decode(stream, resolved);
    }
    drained = true;
  } catch (error) {
    if (isStreamNotFound(error)) return;
    throw fail(stream, error, 'read');
  } finally {
    // Cancelling a call that already ended is a no-op, so only a drained read skips it.
    if (!drained) void read.cancel().catch(() => undefined);
  }
}

/** The event at `seq`, or `undefined` when the stream has no such revision. */
export async function readOne(stream: EsdbStream, seq: number): Promise<Sequenced | undefined> {
  let found: Sequenced | undefined;
  for await (const event of readRange(stream, { from: seq, count: 1, direction: 'forwards' })) {
    found = event;
  }
  return found?.seq === seq ? found : undefined;
}

/** The last revision of the stream (= last seq), `null` for a missing stream. Reads one record. */
export async function readLastSeq(stream: EsdbStream): Promise<number | null> {
  stream.context.ensureOpen();
  try {
    const read = stream.context.client.readStream(stream.streamName, {
      fromRevision: END,
      direction: BACKWARDS,
      maxCount: 1,
    });
    let last: number | null = null;
    // Drained, not left early: leaving a client read before its end strands the gRPC call.
    // No decode: the head is a position, and a bad payload is reported by whoever reads it.
    for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
      if (resolved.event !== undefined) last = Number(resolved.event.revision);
    }
    return last;
  } catch (error) {
    if (isStreamNotFound(error)) return null;
    throw fail(stream, error, 'read the last seq');
  }
}

/** Every event from `fromSeq` to the end, in seq order (for catching up). */
export function readFrom(stream: EsdbStream, fromSeq: number): AsyncGenerator<Sequenced> {
  return readRange(stream, {
    from: fromSeq,
    count: Number.MAX_SAFE_INTEGER,
    direction: 'forwards',
  });
}

/** The client's position to start a forwards read or an (exclusive) subscription from. */
export const startOf = (seq: number): typeof START | bigint =>
  seq === 0 ? START : BigInt(seq - 1);
