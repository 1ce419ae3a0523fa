/**
 * Content at rest: the words of each message and document (the content fields, listed
 * in `SEALED_FIELDS`) are stored encrypted with that item's own data key, so that destroying the
 * key — an Erasure — makes them unrecoverable in every copy of the log, backups included, while
 * the event itself (id, kind, seq, times, speaker, media type) stays as it was written.
 *
 * Sealing is deterministic for one item and one content (see src/keys/content-seal.ts), so an
 * idempotent retry stores the same bytes and the store's same-id, same-content check holds.
 */
import {
  MemoryError,
  SEALED_FIELDS,
  deepFreeze,
  erasedForm,
  isContentKind,
  isErased,
  markValidated,
  type MemoryEvent,
  type Sequenced,
} from '../../core/index.js';
import { openText, sealText, type KeyStore } from '../../keys/index.js';

/** The fields of a stored event, sealed or not. */
type Fields = Record<string, unknown>;

/** Binds a ciphertext to its memory and item: a sealed field moved elsewhere does not open. */
const aadOf = (memoryId: string, id: string) => `${memoryId}/${id}`;

/** True for an event whose words are stored sealed. */
export function isSealed(event: MemoryEvent): boolean {
  return typeof (event as { sealed?: unknown }).sealed === 'string';
}

/**
 * The events as the store keeps them: content with its words sealed under keys created (and
 * made durable) in one key-store transaction before anything is appended. Content imported as
 * already erased (an export's marker) is sealed with no words under a fresh key, which the
 * import's own Erasure then destroys. Other kinds pass as they are.
 */
export async function sealEvents(
  keys: KeyStore,
  memoryId: string,
  events: readonly MemoryEvent[],
): Promise<MemoryEvent[]> {
  const content = events.filter((e) => isContentKind(e.kind) && !isSealed(e));
  if (content.length === 0) return [...events];
  const keyOf = await keys.keysFor(
    memoryId,
    content.map((e) => e.id),
  );
  return events.map((event) => {
    if (!isContentKind(event.kind) || isSealed(event)) return event;
    const fields = { ...event } as Fields;
    const words: Fields = {};
    for (const field of SEALED_FIELDS[event.kind]) {
      if (fields[field] !== undefined && !isErased(event)) words[field] = fields[field];
      delete fields[field];
    }
    delete fields.erased;
    const sealed = sealText(keyOf.get(event.id)!, JSON.stringify(words), aadOf(memoryId, event.id));
    return markValidated(deepFreeze({ ...fields, sealed } as unknown as MemoryEvent));
  });
}

/**
 * One stored event as reads return it: sealed words opened with the item's key, or the erasure
 * marker when an Erasure destroyed the key. A sealed item with neither a key nor a tombstone is
 * `KEY_MISSING`: this key store is not the one the log was written with, and showing the item
 * as erased would hide a lost key behind a false record.
 */
export function openEvent<E extends Sequenced>(keys: KeyStore, memoryId: string, event: E): E {
  if (!isSealed(event)) return event;
  const key = keys.lookup(memoryId, [event.id]).get(event.id);
  return openWith(key, memoryId, event, keys.description);
}

/** {@link openEvent} for many events of one memory, with one key lookup. */
export function openEvents<E extends Sequenced>(
  keys: KeyStore,
  memoryId: string,
  events: readonly E[],
): E[] {
  const sealed = events.filter(isSealed);
  if (sealed.length === 0) return [...events];
  const found = keys.lookup(
    memoryId,
    sealed.map((e) => e.id),
  );
  return events.map((event) =>
    isSealed(event) ? openWith(found.get(event.id), memoryId, event, keys.description) : event,
  );
}

function openWith<E extends Sequenced>(
  key: Buffer | 'erased' | undefined,
  memoryId: string,
  event: E,
  keyStore: string,
): E {
  const { sealed, ...rest } = event as unknown as Fields & { sealed: string };
  if (key === 'erased') return markValidated(deepFreeze(erasedForm(rest) as unknown as E));
  if (key === undefined) {
    throw new MemoryError(
      'KEY_MISSING',
      `Item ${event.id} of memory ${memoryId} is stored encrypted, but ${keyStore} holds neither its key nor a record of its erasure: open the log with the key store it was written with.`,
      { details: { memoryId, id: event.id } },
    );
  }
  const words = JSON.parse(openText(key, sealed, aadOf(memoryId, event.id))) as Fields;
  // No words at all: the item came in already erased (an import); its Erasure follows it.
  if (Object.keys(words).length === 0) {
    return markValidated(deepFreeze(erasedForm(rest) as unknown as E));
  }
  return markValidated(deepFreeze({ ...rest, ...words } as unknown as E));
}
