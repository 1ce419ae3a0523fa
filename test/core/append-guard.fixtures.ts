/**
 * Shared helpers of the append guard specs (append-guard.*.unit.spec.ts).
 */
import {
  decideAppend,
  isMemoryError,
  type LogView,
  type MemoryError,
  type MemoryErrorCode,
  type MemoryEvent,
  type Sequenced,
  type StoredEntry,
} from '../../src/core/index.js';

/** The memory id every view is built for. */
export const MEMORY = 'team-a';

/** A view of a stored log, as a store would build it for the guard. */
export function viewOf(log: readonly Sequenced[]): LogView {
  const entries = new Map<string, StoredEntry>();
  for (const event of log) {
    entries.set(event.id, { kind: event.kind, seq: event.seq, deletedBy: null, event });
    if (event.kind === 'deletion') {
      for (const id of event.targets) {
        entries.set(id, { ...entries.get(id)!, deletedBy: { id: event.id, seq: event.seq } });
      }
    }
  }
  return { memoryId: MEMORY, lastSeq: log.at(-1)?.seq ?? null, entries };
}

/** Given a stored log, when `events` are appended (with `expected`), then this error is thrown. */
export function rejectionOf(
  code: MemoryErrorCode,
  log: readonly Sequenced[],
  events: readonly MemoryEvent[],
  expected?: number | null,
): MemoryError {
  try {
    decideAppend(viewOf(log), events, expected);
  } catch (error) {
    if (isMemoryError(error, code)) return error;
    throw error;
  }
  throw new Error(`expected ${code}, but the append was accepted`);
}
