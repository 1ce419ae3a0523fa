/**
 * The expected-revision and idempotency rules of the real server's index writer
 * (spec §5.2 and §5.3, `IndexWriter.cs:153-325`), as pure functions over a stream snapshot.
 */
import {
  DELETED_REVISION,
  NO_REVISION,
  type ExpectedRevision,
  type RecordedEvent,
} from './types.js';

/** What the rules need to know about one stream at the moment of a write. */
export interface StreamSnapshot {
  readonly name: string;
  /** Events of the stream by revision (index === revision); the tombstone is not among them. */
  readonly events: readonly RecordedEvent[];
  readonly tombstoned: boolean;
  /** `$tb` of the metastream is {@link DELETED_REVISION}. */
  readonly softDeleted: boolean;
  /** The metastream `$$name` has events: `stream_exists` then passes on an empty stream. */
  readonly hasMetadata: boolean;
  /** The committed event with this id, if any: the server's "recently committed" cache. */
  readonly lookupId: (id: string) => RecordedEvent | undefined;
}

/** What an append must do. */
export type AppendDecision =
  | { readonly kind: 'write' }
  /** The same ids were already written: reply with the original last event, write nothing. */
  | { readonly kind: 'idempotent'; readonly last: RecordedEvent }
  | { readonly kind: 'wrong-expected-version' }
  | { readonly kind: 'stream-deleted' };

/** Current revision as the server reports it: `long.MaxValue` once tombstoned. */
export function currentRevisionOf(stream: StreamSnapshot): bigint {
  return stream.tombstoned ? DELETED_REVISION : BigInt(stream.events.length) - 1n;
}

/**
 * Decides an append of events with the given ids under an expectation.
 * The table of spec §5.2, then the weak (any, stream_exists) or strong (exact below current,
 * no_stream on an existing stream) idempotency check of §5.3.
 */
export function decideAppend(
  stream: StreamSnapshot,
  expected: ExpectedRevision,
  ids: readonly string[],
): AppendDecision {
  const current = currentRevisionOf(stream);
  if (ids.length === 0) {
    // An empty append only ever answers Ok or WEV (IndexWriter.cs:162), even on a tombstone.
    return expectationHolds(stream, expected) ? WRITE : WEV;
  }
  if (stream.tombstoned) return DELETED;
  switch (expected.kind) {
    case 'any':
      return weakCheck(stream, ids);
    case 'stream_exists':
      if (stream.softDeleted) return DELETED;
      if (current === NO_REVISION && !stream.hasMetadata) return WEV;
      return weakCheck(stream, ids);
    case 'no_stream': {
      if (current === NO_REVISION) return WRITE;
      const match = strongCheck(stream, NO_REVISION, ids);
      if (match.kind === 'all') return { kind: 'idempotent', last: match.last };
      // Writing "no_stream" onto a soft-deleted stream undeletes it (StorageWriterService.cs).
      return match.kind === 'none' && stream.softDeleted ? WRITE : WEV;
    }
    case 'exact': {
      const expectedRevision = expected.revision;
      if (stream.softDeleted) return expectedRevision === current ? WRITE : WEV;
      if (expectedRevision === current) return WRITE;
      if (current === NO_REVISION || expectedRevision > current) return WEV;
      const match = strongCheck(stream, expectedRevision, ids);
      return match.kind === 'all' ? { kind: 'idempotent', last: match.last } : WEV;
    }
  }
}

/**
 * Whether the expectation holds without writing anything: used by empty appends and by
 * delete/tombstone, which have no idempotency (their record has a fresh id each time).
 */
export function expectationHolds(stream: StreamSnapshot, expected: ExpectedRevision): boolean {
  const current = currentRevisionOf(stream);
  switch (expected.kind) {
    case 'any':
      return true;
    case 'no_stream':
      return current === NO_REVISION || stream.tombstoned;
    case 'stream_exists':
      return current !== NO_REVISION || stream.hasMetadata;
    case 'exact':
      return expected.revision === current;
  }
}

const WRITE: AppendDecision = { kind: 'write' };
const WEV: AppendDecision = { kind: 'wrong-expected-version' };
const DELETED: AppendDecision = { kind: 'stream-deleted' };

/**
 * Weak check: only when the *first* id is known for this stream is the request a retry; then
 * every id must be known for it, or the server reports corrupted idempotency as WEV.
 */
function weakCheck(stream: StreamSnapshot, ids: readonly string[]): AppendDecision {
  const first = stream.lookupId(ids[0]!);
  if (first?.streamName !== stream.name) return WRITE;
  let last: RecordedEvent | undefined;
  for (const id of ids) {
    last = stream.lookupId(id);
    if (last?.streamName !== stream.name) return WEV;
  }
  return { kind: 'idempotent', last: last! };
}

type StrongMatch =
  | { readonly kind: 'all'; readonly last: RecordedEvent }
  | { readonly kind: 'none' }
  | { readonly kind: 'partial' };

/** Strong check: event k of the request must be the stored event at revision `after + 1 + k`. */
function strongCheck(stream: StreamSnapshot, after: bigint, ids: readonly string[]): StrongMatch {
  const start = Number(after + 1n);
  let last: RecordedEvent | undefined;
  for (const [k, id] of ids.entries()) {
    last = stream.events[start + k];
    if (last?.id !== id) return k === 0 ? { kind: 'none' } : { kind: 'partial' };
  }
  return { kind: 'all', last: last! };
}
