/** Folding a memory's log as it is read, without holding the whole log in memory. */
import { startFold, type MemoryState } from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';

/** The state a log folds to, and how many events went into it. */
export interface FoldedLog {
  readonly state: MemoryState;
  readonly events: number;
}

/**
 * Reads the log (up to `upToSeq` inclusive; `-1` for none) and folds it with the core fold,
 * which throws `REPLAY_ORDER` or `LOG_INVARIANT_VIOLATED` at the first event no guarded store
 * could have written; the store's reader throws `EVENT_DECODE_FAILED` for an unreadable event.
 */
export async function foldLog(log: EventLog, upToSeq?: number): Promise<FoldedLog> {
  const fold = startFold();
  let events = 0;
  if (upToSeq !== undefined && upToSeq < 0) return { state: fold.state(), events };
  for await (const event of log.read(upToSeq === undefined ? {} : { toSeq: upToSeq })) {
    fold.apply(event);
    events += 1;
  }
  return { state: fold.state(), events };
}
