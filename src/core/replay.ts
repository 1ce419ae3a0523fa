import { MemoryError } from './errors.js';
import { startFold } from './fold.js';
import type { MemoryEvent } from './events.js';
import type { MemoryState } from './state.js';

/** Options of {@link replay}. */
export interface ReplayOptions {
  /**
   * Stop right after the event with this seq: the state as it stood then (`-1`: before the
   * first event).
   * @defaultValue the whole log
   */
  readonly upToSeq?: number;
  /**
   * Resume from an earlier state (a snapshot) instead of the empty memory; `events` must then
   * continue at `from.lastSeq + 1`.
   * @defaultValue the empty memory
   */
  readonly from?: MemoryState;
}

/**
 * Folds sequenced events into a `MemoryState` (docs/library.md).
 * Throws `REPLAY_ORDER` for an event without seq, out of order or after a gap, and
 * `LOG_INVARIANT_VIOLATED` for a log no guarded store could have written.
 */
export function replay(events: Iterable<MemoryEvent>, options: ReplayOptions = {}): MemoryState {
  const fold = startFold(options.from);
  const upTo = options.upToSeq ?? Infinity;
  if (fold.lastSeq !== null && upTo < fold.lastSeq) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Cannot replay up to seq ${upTo} from a snapshot taken at seq ${fold.lastSeq}.`,
      { details: { upToSeq: upTo, snapshotSeq: fold.lastSeq } },
    );
  }
  for (const event of events) {
    // A seq past the bound ends the fold; `null` falls through so apply() rejects it.
    if (event.seq !== null && event.seq > upTo) break;
    fold.apply(event);
  }
  return fold.state();
}
