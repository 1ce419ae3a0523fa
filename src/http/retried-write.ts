/**
 * Retries of a write: a client that sends its own `id` may repeat the request (after a timeout,
 * a dropped connection) and get the stored event back, even without a `timestamp`. The server
 * fills `timestamp` anew on each try, so the store sees different content under the same id and
 * refuses it (`ID_CONFLICT`); the retry is recognized here instead: the stored event has the
 * same id and kind, and every field the client sent (its defaults included) is equal. Fields the
 * server filled (`timestamp`, `retainUntil` by a retention policy, `seq`) are not compared.
 */
import { canonicalJson, isMemoryError, type EventKind, type Sequenced } from '../core/index.js';

/** What the stored event must match: the route's kind and the body as the client sent it. */
export interface WriteRequest {
  readonly kind: EventKind;
  readonly body: Readonly<Record<string, unknown>> & { readonly id?: string | undefined };
}

/** True when `stored` is what `request` asked for, field by field of what the client sent. */
export function isRetryOf(stored: Sequenced, request: WriteRequest): boolean {
  if (stored.kind !== request.kind || stored.id !== request.body.id) return false;
  const fields = stored as unknown as Readonly<Record<string, unknown>>;
  return Object.entries(request.body).every(
    ([key, value]) => canonicalJson(fields[key]) === canonicalJson(value),
  );
}

/**
 * Runs `write`; when it is refused with `ID_CONFLICT` and the event stored under the client's id
 * is this very request ({@link isRetryOf}), answers that event instead (or what `answer` makes
 * of it, for a write that answers more than the one event).
 */
export async function writeOrReturnRetried<T>(
  request: WriteRequest,
  write: () => Promise<T>,
  lookup: (id: string) => Promise<Sequenced | undefined>,
  answer: (stored: Sequenced) => Promise<T> = async (stored) => stored as T,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const id = request.body.id;
    if (!isMemoryError(error, 'ID_CONFLICT') || id === undefined) throw error;
    const stored = await lookup(id);
    if (stored !== undefined && isRetryOf(stored, request)) return answer(stored);
    throw error;
  }
}
