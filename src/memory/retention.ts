/**
 * Retention by a visible act: content whose `retainUntil` has passed is deleted by a Deletion
 * whose reason names the marker and whose requester is `retention-policy` — never erased.
 */
import { isMemoryError, type Deletion, type Sequenced } from '../core/index.js';
import type { Memledger } from './memledger.js';
import type { MemoryHandle } from './memory-handle.js';

/** Who retention deletions are requested by. */
export const RETENTION_REQUESTER = 'retention-policy';

/** Deletes the visible content of `memory` whose `retainUntil` is at or before `now`. */
export async function sweepExpired(
  memory: MemoryHandle,
  now: Date,
): Promise<Sequenced<Deletion>[]> {
  const state = await memory.state();
  const expired = [...state.visibleMessages, ...state.visibleDocuments].filter(
    (item) => item.retainUntil !== undefined && Date.parse(item.retainUntil) <= now.getTime(),
  );
  const deletions: Sequenced<Deletion>[] = [];
  for (const item of expired) {
    try {
      deletions.push(
        await memory.deleteContent({
          targets: [item.id],
          reason: `retainUntil ${item.retainUntil} has passed`,
          requestedBy: RETENTION_REQUESTER,
          source: 'retention',
        }),
      );
    } catch (error) {
      // Someone deleted it between our read and our append: the goal is met, nothing to do.
      if (!isMemoryError(error, 'ALREADY_DELETED')) throw error;
    }
  }
  return deletions;
}

/** Options of {@link startRetentionSweeper}. */
export interface RetentionSweeperOptions {
  /** How often to sweep. @defaultValue 60000 */
  readonly everyMs?: number;
  /** The clock. @defaultValue the wall clock */
  readonly now?: () => Date;
  /** Called with sweep errors (the sweeper keeps going). @defaultValue ignore */
  readonly onError?: (error: unknown) => void;
}

/**
 * Sweeps every memory that holds events, on an interval. Returns `stop`, which resolves once a
 * sweep in progress has finished, so the store can be closed safely after it.
 */
export function startRetentionSweeper(
  memledger: Memledger,
  options: RetentionSweeperOptions = {},
): () => Promise<void> {
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  const sweep = async () => {
    try {
      for (const memoryId of await memledger.memoryIds())
        await sweepExpired(await memledger.memory(memoryId), now());
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = undefined));
  }, options.everyMs ?? 60_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
