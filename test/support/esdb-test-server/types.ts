/**
 * Plain data types shared by the storage model and the RPC handlers. They carry no protobuf
 * classes, so the storage rules can be reasoned about (and changed) without the wire format.
 */

/**
 * Revision of a tombstoned stream and of its `$streamDeleted` record (.NET `long.MaxValue`,
 * `EventNumber.DeletedStream`); also the `$tb` value that marks a soft-deleted stream.
 */
export const DELETED_REVISION = 9223372036854775807n;

/** "No revision yet": the current revision of a stream without events. */
export const NO_REVISION = -1n;

/** The expected-revision option of Append, BatchAppend, Delete and Tombstone (spec §5.2). */
export type ExpectedRevision =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'exact'; readonly revision: bigint };

/** An event as proposed by a client, already validated and normalised. */
export interface ProposedEvent {
  /** Lower-case UUID text: .NET prints GUIDs lower-case, and ids are compared as GUIDs. */
  readonly id: string;
  readonly type: string;
  /** The server keeps only "is JSON"; any other content type reads back as octet-stream. */
  readonly isJson: boolean;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

/** A committed record: an event of a stream, at a revision and a `$all` position. */
export interface RecordedEvent extends ProposedEvent {
  readonly streamName: string;
  readonly revision: bigint;
  /** Commit and prepare position at once: a modern server self-commits every record (§5.5). */
  readonly position: bigint;
  /** .NET ticks (100 ns) since the Unix epoch, as the `created` metadata entry carries them. */
  readonly created: bigint;
}

/** Result of an append, independent of the RPC that asked for it. */
export type AppendOutcome =
  | {
      readonly kind: 'ok';
      /** Last revision of the stream after the write, {@link NO_REVISION} if still empty. */
      readonly currentRevision: bigint;
      /** Position of the last event written (or of the original one, on an idempotent retry). */
      readonly position: bigint | undefined;
    }
  | WrongExpectedVersion
  | { readonly kind: 'stream-deleted' };

/** Result of a soft delete or a tombstone. */
export type DeleteOutcome =
  | { readonly kind: 'ok'; readonly position: bigint }
  | WrongExpectedVersion
  | { readonly kind: 'stream-deleted' };

/** The facts every wrong-expected-version reply carries. */
export interface WrongExpectedVersion {
  readonly kind: 'wrong-expected-version';
  /** Current revision, or {@link NO_REVISION} when the stream has no events. */
  readonly currentRevision: bigint;
  /** The expectation as the client sent it. */
  readonly expected: ExpectedRevision;
}
