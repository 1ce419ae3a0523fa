import type { Sequenced } from '../core/index.js';
import type { ChangeFeed } from './change-notifier.js';

/** How a seq-addressed log feeds a catch-up subscription. */
export interface CatchUpSource {
  /** Up to `max` events with seq >= `fromSeq`, in seq order. */
  page(fromSeq: number, max: number): Promise<readonly Sequenced[]>;
  /** The store's change feed, and the memory it reads. */
  readonly changes: ChangeFeed;
  readonly memoryId: string;
  /** True once the store is closed: the subscription ends. */
  isClosed(): boolean;
}

const PAGE = 512;

/**
 * Catch up from `fromSeq`, then go live. Reading by seq (never by "what arrived since") makes the
 * hand-over from catch-up to live free of gaps and duplicates: the next read always starts at
 * the seq after the last one delivered.
 */
export async function* catchUpThenLive(
  source: CatchUpSource,
  fromSeq: number,
  signal?: AbortSignal,
): AsyncGenerator<Sequenced> {
  let next = fromSeq;
  while (!signal?.aborted && !source.isClosed()) {
    // Take the version before reading, so an append between the read and the wait still wakes us.
    const seen = source.changes.of(source.memoryId).version;
    const page = await source.page(next, PAGE);
    for (const event of page) {
      if (signal?.aborted) return;
      yield event;
      next = event.seq + 1;
    }
    if (page.length < PAGE) await source.changes.waitAfter(source.memoryId, seen, signal);
  }
}
