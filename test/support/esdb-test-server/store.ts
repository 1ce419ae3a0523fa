/**
 * The in-memory storage model: streams, the `$all` log, the event-id index used for
 * idempotency, stream metadata, soft delete / tombstone, and a synchronous fan-out of every
 * committed record to live subscriptions. It outlives the gRPC server, which is what lets
 * `restart()` keep the data.
 */
import { randomUUID } from 'node:crypto';
import {
  currentRevisionOf,
  decideAppend,
  expectationHolds,
  type StreamSnapshot,
} from './expected-revision.js';
import {
  METADATA_EVENT_TYPE,
  isMetastream,
  isSoftDeleted,
  metastreamOf,
  parseStreamMetadata,
  serializeWithTruncateBefore,
  visibleEvents,
  type StreamMetadata,
} from './stream-metadata.js';
import {
  DELETED_REVISION,
  type AppendOutcome,
  type DeleteOutcome,
  type ExpectedRevision,
  type ProposedEvent,
  type RecordedEvent,
} from './types.js';

/** Result of reading one stream, before paging and direction are applied. */
export type StreamReadResult =
  | { readonly kind: 'ok'; readonly events: readonly RecordedEvent[] }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'stream-deleted' };

/** Called synchronously, in commit order, for every record added to `$all`. */
export type RecordListener = (record: RecordedEvent) => void;

interface StreamState {
  readonly events: RecordedEvent[];
  tombstoned: boolean;
}

/** Event type of the record a tombstone writes into the stream. */
export const STREAM_DELETED_EVENT_TYPE = '$streamDeleted';

/** .NET ticks since the Unix epoch, the unit of the `created` metadata entry. */
export function nowTicks(): bigint {
  return BigInt(Date.now()) * 10_000n;
}

/** The whole database of the fake; see the module comment. */
export class EventStore {
  private readonly streams = new Map<string, StreamState>();
  private readonly log: RecordedEvent[] = [];
  private readonly byId = new Map<string, RecordedEvent>();
  private readonly listeners = new Set<RecordListener>();
  // Real positions are byte offsets: strictly increasing, with gaps. Start above 0 like a node.
  private nextPosition = 1_000n;

  constructor() {
    // A fresh real node already holds system records; readAll tests rely on $all having more
    // records than the user wrote (spec §5.5).
    this.writeRecord(metastreamOf('$scavenges'), {
      id: '00000000-0000-4000-8000-000000000001',
      type: METADATA_EVENT_TYPE,
      isJson: true,
      data: Buffer.from('{"$maxAge":2592000}', 'utf8'),
      customMetadata: new Uint8Array(),
    });
  }

  /** Appends under the rules of spec §5.2/§5.3; notifies listeners of every record written. */
  append(
    streamName: string,
    expected: ExpectedRevision,
    events: readonly ProposedEvent[],
  ): AppendOutcome {
    const snapshot = this.snapshot(streamName);
    const decision = decideAppend(
      snapshot,
      expected,
      events.map((event) => event.id),
    );
    switch (decision.kind) {
      case 'stream-deleted':
        return { kind: 'stream-deleted' };
      case 'wrong-expected-version':
        return {
          kind: 'wrong-expected-version',
          currentRevision: currentRevisionOf(snapshot),
          expected,
        };
      case 'idempotent':
        return {
          kind: 'ok',
          currentRevision: decision.last.revision,
          position: decision.last.position,
        };
      case 'write':
        break;
    }
    if (events.length === 0) {
      return { kind: 'ok', currentRevision: currentRevisionOf(snapshot), position: undefined };
    }
    if (snapshot.softDeleted) {
      // Undelete: hide the old events with `$tb = current + 1`, keeping other metadata keys.
      const nextRevision = BigInt(snapshot.events.length);
      this.writeMetadata(streamName, nextRevision);
    }
    let last: RecordedEvent | undefined;
    for (const event of events) last = this.writeRecord(streamName, event);
    return { kind: 'ok', currentRevision: last!.revision, position: last!.position };
  }

  /** Soft delete: writes `$tb = long.MaxValue` to the metastream (spec §3.4). */
  softDelete(streamName: string, expected: ExpectedRevision): DeleteOutcome {
    const snapshot = this.snapshot(streamName);
    if (snapshot.tombstoned) return { kind: 'stream-deleted' };
    const neverExisted = snapshot.events.length === 0 && !snapshot.hasMetadata;
    if (neverExisted || !expectationHolds(snapshot, expected)) {
      return {
        kind: 'wrong-expected-version',
        currentRevision: currentRevisionOf(snapshot),
        expected,
      };
    }
    return { kind: 'ok', position: this.writeMetadata(streamName, DELETED_REVISION).position };
  }

  /** Hard delete: writes a `$streamDeleted` record at revision `long.MaxValue` (spec §3.4). */
  tombstone(streamName: string, expected: ExpectedRevision): DeleteOutcome {
    const snapshot = this.snapshot(streamName);
    if (snapshot.tombstoned) return { kind: 'stream-deleted' };
    if (!expectationHolds(snapshot, expected)) {
      return {
        kind: 'wrong-expected-version',
        currentRevision: currentRevisionOf(snapshot),
        expected,
      };
    }
    this.stateOf(streamName).tombstoned = true;
    const record = this.writeRecord(
      streamName,
      {
        id: randomUUID(),
        type: STREAM_DELETED_EVENT_TYPE,
        isJson: false,
        data: new Uint8Array(),
        customMetadata: new Uint8Array(),
      },
      DELETED_REVISION,
    );
    return { kind: 'ok', position: record.position };
  }

  /** The visible events of a stream in ascending revision order, or why there are none. */
  readStream(streamName: string): StreamReadResult {
    const state = this.streams.get(streamName);
    if (state?.tombstoned) return { kind: 'stream-deleted' };
    const metadata = this.metadataOf(streamName);
    if (state === undefined || state.events.length === 0 || isSoftDeleted(metadata)) {
      return { kind: 'not-found' };
    }
    return { kind: 'ok', events: visibleEvents(state.events, metadata, nowTicks()) };
  }

  /** Whether the stream has been tombstoned. */
  isTombstoned(streamName: string): boolean {
    return this.streams.get(streamName)?.tombstoned ?? false;
  }

  /** Every record of `$all`, in position order. */
  allRecords(): readonly RecordedEvent[] {
    return this.log;
  }

  /** Registers a live listener; returns the function that removes it. */
  subscribe(listener: RecordListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private snapshot(streamName: string): StreamSnapshot {
    const state = this.streams.get(streamName);
    const metaEvents = this.streams.get(metastreamOf(streamName))?.events ?? [];
    return {
      name: streamName,
      events: state?.events ?? [],
      tombstoned: state?.tombstoned ?? false,
      softDeleted: isSoftDeleted(this.metadataOf(streamName)),
      hasMetadata: metaEvents.length > 0,
      lookupId: (id) => this.byId.get(id),
    };
  }

  private metadataOf(streamName: string): StreamMetadata {
    if (isMetastream(streamName)) return parseStreamMetadata(undefined);
    return parseStreamMetadata(this.streams.get(metastreamOf(streamName))?.events.at(-1));
  }

  private writeMetadata(streamName: string, truncateBefore: bigint): RecordedEvent {
    const { raw } = this.metadataOf(streamName);
    return this.writeRecord(metastreamOf(streamName), {
      id: randomUUID(),
      type: METADATA_EVENT_TYPE,
      isJson: true,
      data: serializeWithTruncateBefore(raw, truncateBefore),
      customMetadata: new Uint8Array(),
    });
  }

  private stateOf(streamName: string): StreamState {
    let state = this.streams.get(streamName);
    if (state === undefined) {
      state = { events: [], tombstoned: false };
      this.streams.set(streamName, state);
    }
    return state;
  }

  private writeRecord(streamName: string, event: ProposedEvent, revision?: bigint): RecordedEvent {
    const state = this.stateOf(streamName);
    const record: RecordedEvent = {
      ...event,
      streamName,
      revision: revision ?? BigInt(state.events.length),
      position: this.nextPosition,
      created: nowTicks(),
    };
    // Advance like a byte offset so positions are increasing but not contiguous.
    this.nextPosition += 128n + BigInt(event.data.length + event.customMetadata.length);
    // The tombstone record lives only in $all: stream revisions stay dense (index === revision).
    if (revision === undefined) state.events.push(record);
    this.log.push(record);
    this.byId.set(event.id, record);
    for (const listener of [...this.listeners]) listener(record);
    return record;
  }
}
