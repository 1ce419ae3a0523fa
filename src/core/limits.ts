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
} as const;
