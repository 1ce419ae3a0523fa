/**
 * Size limits of event fields. They keep one event well under every store's record limit
 * (EventStoreDB refuses records over 16 MiB) and keep a single request from exhausting memory.
 */
export const LIMITS = {
  /** Short labels: speaker, name, source, actor, sessionId, requestedBy, mediaType. */
  label: 512,
  /** A recall query or a deletion reason. */
  query: 10_000,
  /** A message's content or a document's extracted text, in characters. */
  text: 4_000_000,
  /** Ids in one recall or one deletion. */
  ids: 10_000,
  /** Events in one append. */
  batch: 10_000,
  /**
   * Bytes of one event, per store: the UTF-8 length of the event's JSON without `seq` (the
   * wire format `memledger export` writes, less its `seq` field). Checked before any write, so
   * an event either fits its store or is refused with `EVENT_TOO_LARGE` naming the limit.
   * EventStoreDB's is its maximum append size (an option of the store, read back from the
   * server when it refuses an append) less {@link EVENT_TYPE_ALLOWANCE}: one event must fit in
   * one append.
   */
  eventBytes: {
    inMemory: 16 * 1024 * 1024,
    sqlite: 16 * 1024 * 1024,
    eventstoredb: 1024 * 1024 - 16,
  },
  /**
   * Bytes of one append, per store: the sum over its events of their size plus
   * {@link EVENT_TYPE_ALLOWANCE}. Only EventStoreDB has one (its maximum append size, 1 MiB by
   * default up to EventStoreDB 24.10); the embedded stores are bounded by {@link LIMITS.batch}.
   */
  appendBytes: {
    inMemory: Number.POSITIVE_INFINITY,
    sqlite: Number.POSITIVE_INFINITY,
    eventstoredb: 1024 * 1024,
  },
} as const;

/**
 * Bytes each event adds to an append's size beyond its JSON: room for its type name, which
 * EventStoreDB counts twice (the longest, `Document` and `Deletion`, have 8 characters).
 */
export const EVENT_TYPE_ALLOWANCE = 16;
