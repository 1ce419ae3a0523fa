import type { EventLog, ReadOptions } from '../../src/store/event-log.port.js';
import type { Sequenced } from '../../src/core/index.js';

/** Reads a whole range into an array. */
export async function readAll(log: EventLog, options: ReadOptions = {}): Promise<Sequenced[]> {
  const out: Sequenced[] = [];
  for await (const event of log.read(options)) out.push(event);
  return out;
}

/** Takes `count` events from an async iterable, failing after `timeoutMs`. */
export async function take<T>(
  source: AsyncIterable<T>,
  count: number,
  timeoutMs = 5000,
): Promise<T[]> {
  const out: T[] = [];
  if (count === 0) return out;
  const iterator = source[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${out.length} of ${count} items`)),
      timeoutMs,
    );
  });
  try {
    while (out.length < count) {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done) break;
      out.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/** Resolves with the error a promise rejects with; fails when it resolves. */
export async function rejectionOf(
  promise: Promise<unknown>,
): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection, but the promise resolved');
}
