/**
 * The dry run of an import: the store's own append guard, run event by event against what the
 * log holds now, before anything is written. It finds what a schema cannot see (a deletion of an
 * unknown id, a recall of deleted content, an id already used for other content) and names the
 * line; and it tells apart the events already in the log (an earlier, interrupted import).
 */
import {
  decideAppend,
  idsNamedBy,
  indexStoredEvent,
  isMemoryError,
  type StoredEntry,
} from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import type { ImportLine, LineProblem } from './import-file.js';

/** The outcome of the dry run. */
export interface ImportPlan {
  /** Events not yet in the log, in file order. */
  readonly fresh: readonly ImportLine[];
  /** How many lines are already in the log with the same content. */
  readonly present: number;
  /** Lines the guard would refuse. */
  readonly problems: readonly LineProblem[];
  /** The log's last seq when the plan was made. */
  readonly lastSeq: number | null;
}

/** The field a guard error is about, for the `line N: <path>: <rule>` report. */
const PATH_OF_CODE: Readonly<Record<string, string>> = {
  ALREADY_SEQUENCED: 'seq',
  ID_CONFLICT: 'id',
  DELETION_TARGET_UNKNOWN: 'targets',
  DELETION_TARGET_NOT_CONTENT: 'targets',
  ALREADY_DELETED: 'targets',
  RECALL_TARGET_UNKNOWN: 'recalled',
  RECALL_TARGET_NOT_CONTENT: 'recalled',
  RECALL_TARGET_DELETED: 'recalled',
  ERASURE_TARGET_UNKNOWN: 'targets',
  ERASURE_TARGET_NOT_CONTENT: 'targets',
  ERASURE_TARGET_NOT_DELETED: 'targets',
  ALREADY_ERASED: 'targets',
  ERASURE_UNAVAILABLE: 'targets',
};

/** What the log holds about the ids the file names (one pass over the log). */
async function entriesFor(
  log: EventLog,
  ids: ReadonlySet<string>,
): Promise<{ entries: Map<string, StoredEntry>; lastSeq: number | null }> {
  const entries = new Map<string, StoredEntry>();
  let lastSeq: number | null = null;
  for await (const event of log.read()) {
    lastSeq = event.seq;
    // Only what the file names (and the deletions and erasures that may name it) is kept in memory.
    if (ids.has(event.id) || event.kind === 'deletion' || event.kind === 'erasure') {
      indexStoredEvent(entries, event, ids.has(event.id));
    }
  }
  return { entries, lastSeq };
}

/** Runs the append guard over the whole file without writing. */
export async function planImport(log: EventLog, lines: readonly ImportLine[]): Promise<ImportPlan> {
  const named = idsNamedBy(lines.map((l) => l.event));
  const { entries, lastSeq } = await entriesFor(log, named);
  const fresh: ImportLine[] = [];
  const problems: LineProblem[] = [];
  let present = 0;
  let head = lastSeq;
  for (const line of lines) {
    try {
      const decision = decideAppend({ memoryId: log.memoryId, lastSeq: head, entries }, [
        line.event,
      ]);
      const [written] = decision.toWrite;
      if (written === undefined) {
        present += 1;
        continue;
      }
      // Later lines see this one as if it had been written, as the real batches will.
      head = written.seq;
      indexStoredEvent(entries, written, true);
      fresh.push(line);
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      problems.push({
        line: line.line,
        path: PATH_OF_CODE[error.code] ?? '(root)',
        rule: `${error.message} [${error.code}]`,
      });
    }
  }
  return { fresh, present, problems, lastSeq };
}
