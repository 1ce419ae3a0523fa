/**
 * Stream metadata (`$$<stream>` / `$metadata` events) as far as reads and deletes need it:
 * `$tb` (truncate before; soft delete), `$maxCount` and `$maxAge` (spec §5.4).
 */
import { DELETED_REVISION, type RecordedEvent } from './types.js';

/** Type of the events that carry stream metadata. */
export const METADATA_EVENT_TYPE = '$metadata';

/** The parsed metadata that affects which events of a stream are visible. */
export interface StreamMetadata {
  /** Every key of the latest `$metadata` event, so that rewrites can preserve custom keys. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly truncateBefore: bigint | undefined;
  readonly maxCount: number | undefined;
  /** Seconds. */
  readonly maxAge: number | undefined;
}

const NO_METADATA: StreamMetadata = {
  raw: {},
  truncateBefore: undefined,
  maxCount: undefined,
  maxAge: undefined,
};

/** Name of the metastream of a stream (`$$X` for `X`). */
export function metastreamOf(streamName: string): string {
  return `$$${streamName}`;
}

/** Whether a stream is itself a metastream, whose own metadata this fake does not apply. */
export function isMetastream(streamName: string): boolean {
  return streamName.startsWith('$$');
}

/** Parses the latest `$metadata` event of a metastream; malformed JSON counts as no metadata. */
export function parseStreamMetadata(latest: RecordedEvent | undefined): StreamMetadata {
  if (latest?.type !== METADATA_EVENT_TYPE) return NO_METADATA;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(latest.data).toString('utf8'));
  } catch {
    return NO_METADATA;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return NO_METADATA;
  const raw = parsed as Record<string, unknown>;
  return {
    raw,
    truncateBefore: toTruncateBefore(raw.$tb),
    maxCount: typeof raw.$maxCount === 'number' ? raw.$maxCount : undefined,
    maxAge: typeof raw.$maxAge === 'number' ? raw.$maxAge : undefined,
  };
}

/**
 * Serialises metadata with a new `$tb`, keeping the other keys. `$tb` is spliced in as text
 * because `long.MaxValue` is not representable as a JS number.
 */
export function serializeWithTruncateBefore(
  raw: Readonly<Record<string, unknown>>,
  truncateBefore: bigint,
): Uint8Array {
  const rest = Object.fromEntries(Object.entries(raw).filter(([key]) => key !== '$tb'));
  const body = JSON.stringify(rest);
  const tb = `"$tb":${truncateBefore.toString()}`;
  return Buffer.from(body === '{}' ? `{${tb}}` : `${body.slice(0, -1)},${tb}}`, 'utf8');
}

/** Whether metadata marks its stream as soft-deleted. */
export function isSoftDeleted(metadata: StreamMetadata): boolean {
  return metadata.truncateBefore === DELETED_REVISION;
}

/**
 * The events of a stream that reads and subscriptions may return under its metadata. `events`
 * is the stream in revision order. Without metadata it is returned as it is: a read costs what it
 * returns, not the stream's length (a per-read scan made this server, not the client under test,
 * the busiest part of a long load run).
 */
export function visibleEvents(
  events: readonly RecordedEvent[],
  metadata: StreamMetadata,
  nowTicks: bigint,
): readonly RecordedEvent[] {
  const { truncateBefore, maxCount, maxAge } = metadata;
  if (truncateBefore === undefined && maxCount === undefined && maxAge === undefined) return events;
  const firstByCount = maxCount === undefined ? 0n : BigInt(events.length - maxCount);
  const first =
    truncateBefore !== undefined && truncateBefore > firstByCount ? truncateBefore : firstByCount;
  const oldest = maxAge === undefined ? undefined : nowTicks - BigInt(Math.round(maxAge * 1e7));
  return events
    .slice(fromRevision(events, first))
    .filter((event) => oldest === undefined || event.created >= oldest);
}

/** The index of the first event at or after `revision` in `events` (revision order). */
export function fromRevision(events: readonly RecordedEvent[], revision: bigint): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (events[middle]!.revision < revision) low = middle + 1;
    else high = middle;
  }
  return low;
}

function toTruncateBefore(value: unknown): bigint | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  // JSON.parse rounds 9223372036854775807 up to 2^63; anything that large means "deleted".
  return value >= Number(DELETED_REVISION) ? DELETED_REVISION : BigInt(Math.trunc(value));
}
