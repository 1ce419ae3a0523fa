/**
 * The append guard: one pure function every store runs, inside its own atomic section, before it
 * writes. It enforces invariants 2 (seq is the store's), 5 (deletion targets), 7 (erasure
 * targets: deleted content, not yet erased), 8 (recalled ids must be visible content at the
 * append) and 9 (idempotency by id), and it assigns the seqs.
 */
import { MemoryError, type MemoryErrorCode } from './errors.js';
import { isContentKind, type EventKind, type MemoryEvent, type Sequenced } from './events.js';
import { sameContent } from './content-equality.js';

/** What a store knows of one id already in the log. */
export interface StoredEntry {
  readonly kind: EventKind;
  readonly seq: number;
  /** The Deletion that removed this content, if any. */
  readonly deletedBy: { readonly id: string; readonly seq: number } | null;
  /** The Erasure that destroyed this content's words, if any (absent: none). */
  readonly erasedBy?: { readonly id: string; readonly seq: number } | null;
  /** The stored event; needed only when the same id is appended again. */
  readonly event?: Sequenced;
}

/** The slice of a log the guard needs: its head and the entries of the ids an append names. */
export interface LogView {
  readonly memoryId: string;
  readonly lastSeq: number | null;
  /** Entries for (at least) every id of {@link idsNamedBy}; a missing id is unknown. */
  readonly entries: ReadonlyMap<string, StoredEntry>;
}

/** What to write and what to answer. */
export interface AppendDecision {
  /** New events with their seqs, to insert in this order. */
  readonly toWrite: readonly Sequenced[];
  /** One stored event per appended event, in the caller's order (duplicates as first stored). */
  readonly stored: readonly Sequenced[];
}

/**
 * Records a stored event in an id index, as every store's guard view needs it: the event's own
 * entry, and `deletedBy` on the content a Deletion removes (the first deletion wins; a target the
 * index does not hold is left out). `keepEvent` keeps the event itself for idempotency checks.
 */
export function indexStoredEvent(
  entries: Map<string, StoredEntry>,
  event: Sequenced,
  keepEvent: boolean,
): void {
  const own = { kind: event.kind, seq: event.seq, deletedBy: null };
  entries.set(event.id, keepEvent ? { ...own, event } : own);
  if (event.kind === 'deletion') {
    for (const target of event.targets) {
      const entry = entries.get(target);
      if (entry !== undefined && entry.deletedBy === null) {
        entries.set(target, { ...entry, deletedBy: { id: event.id, seq: event.seq } });
      }
    }
  } else if (event.kind === 'erasure') {
    for (const target of event.targets) {
      const entry = entries.get(target);
      if (entry !== undefined && !entry.erasedBy) {
        entries.set(target, { ...entry, erasedBy: { id: event.id, seq: event.seq } });
      }
    }
  }
}

/** Every id an append touches: the events' own ids, deletion targets and recalled ids. */
export function idsNamedBy(events: readonly MemoryEvent[]): Set<string> {
  const ids = idsReferencedBy(events);
  for (const event of events) ids.add(event.id);
  return ids;
}

/** The ids an append's events point at: Deletion and Erasure targets, recalled ids. */
export function idsReferencedBy(events: readonly MemoryEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.kind === 'deletion' || event.kind === 'erasure') {
      event.targets.forEach((id) => ids.add(id));
    }
    if (event.kind === 'recall') event.recalled.forEach((id) => ids.add(id));
  }
  return ids;
}

const reject = (
  code: MemoryErrorCode,
  message: string,
  details: Record<string, unknown>,
): never => {
  throw new MemoryError(code, message, { details });
};

/**
 * Decides an append against a log view. Events already stored with the same content are
 * answered from the log and not written again; expectedLastSeq (a number, or `null` for "the
 * log must be empty") is checked only when something new would be written.
 */
export function decideAppend(
  view: LogView,
  events: readonly MemoryEvent[],
  expectedLastSeq?: number | null,
): AppendDecision {
  const fresh: MemoryEvent[] = [];
  const stored: (Sequenced | MemoryEvent)[] = [];
  const seenInBatch = new Set<string>();
  for (const event of events) {
    if (event.seq !== null) {
      reject(
        'ALREADY_SEQUENCED',
        `Event ${event.id} already has seq ${event.seq}; the store assigns seq.`,
        { id: event.id, seq: event.seq },
      );
    }
    if (seenInBatch.has(event.id)) {
      reject('ID_CONFLICT', `Event ${event.id} appears twice in one append.`, { id: event.id });
    }
    seenInBatch.add(event.id);
    const existing = view.entries.get(event.id);
    if (existing === undefined) {
      fresh.push(event);
      stored.push(event);
    } else if (existing.event !== undefined && sameContent(existing.event, event)) {
      stored.push(existing.event);
    } else {
      reject(
        'ID_CONFLICT',
        `Event ${event.id} is already in memory ${view.memoryId} (seq ${existing.seq}) with different content.`,
        { id: event.id, seq: existing.seq },
      );
    }
  }
  if (fresh.length === 0) return { toWrite: [], stored: stored as Sequenced[] };
  if (expectedLastSeq !== undefined && expectedLastSeq !== view.lastSeq) {
    reject(
      'EXPECTED_SEQ_MISMATCH',
      `Memory ${view.memoryId} is at seq ${view.lastSeq ?? 'none (empty)'}, not ${expectedLastSeq ?? 'none (empty)'} as expected.`,
      {
        memoryId: view.memoryId,
        expectedLastSeq,
        actualLastSeq: view.lastSeq,
      },
    );
  }
  const toWrite = sequence(view, fresh);
  const bySelf = new Map(toWrite.map((e) => [e.id, e]));
  return { toWrite, stored: stored.map((e) => bySelf.get(e.id) ?? (e as Sequenced)) };
}

/** Checks targets and recalled ids event by event (earlier events of the batch count) and numbers them. */
function sequence(view: LogView, fresh: readonly MemoryEvent[]): Sequenced[] {
  // What this batch's earlier events wrote or marked, over what the log held before it.
  const overlay = new Map<string, StoredEntry>();
  let next = view.lastSeq === null ? 0 : view.lastSeq + 1;
  const out: Sequenced[] = [];
  for (const event of fresh) {
    const seq = next++;
    if (event.kind === 'deletion') {
      for (const target of event.targets) {
        const entry = overlay.get(target) ?? view.entries.get(target);
        checkTarget(view.memoryId, entry, target, 'Deletion target');
        overlay.set(target, { ...entry, deletedBy: { id: event.id, seq } });
      }
    } else if (event.kind === 'erasure') {
      for (const target of event.targets) {
        const entry = overlay.get(target) ?? view.entries.get(target);
        checkErasureTarget(view.memoryId, entry, target);
        overlay.set(target, { ...entry, erasedBy: { id: event.id, seq } });
      }
    } else if (event.kind === 'recall') {
      for (const id of event.recalled)
        checkTarget(view.memoryId, overlay.get(id) ?? view.entries.get(id), id, 'Recalled id');
    }
    // Frozen (its fields already are: the event was validated) but not marked validated: an
    // event with a seq is refused by every append (ALREADY_SEQUENCED), so the mark would never
    // be read, and a WeakSet entry per event is a measurable share of a batched append's CPU.
    const sequenced = Object.freeze({ ...event, seq }) as Sequenced;
    overlay.set(event.id, { kind: event.kind, seq, deletedBy: null, event: sequenced });
    out.push(sequenced);
  }
  return out;
}

function checkTarget(
  memoryId: string,
  entry: StoredEntry | undefined,
  id: string,
  role: 'Deletion target' | 'Recalled id',
): asserts entry is StoredEntry {
  const deletion = role === 'Deletion target';
  if (entry === undefined) {
    reject(
      deletion ? 'DELETION_TARGET_UNKNOWN' : 'RECALL_TARGET_UNKNOWN',
      `${role} ${id} does not exist in memory ${memoryId}.`,
      { id, memoryId },
    );
  } else if (!isContentKind(entry.kind)) {
    reject(
      deletion ? 'DELETION_TARGET_NOT_CONTENT' : 'RECALL_TARGET_NOT_CONTENT',
      `${role} ${id} is a ${entry.kind}, not a message or document.`,
      { id, kind: entry.kind },
    );
  } else if (entry.deletedBy !== null) {
    reject(
      deletion ? 'ALREADY_DELETED' : 'RECALL_TARGET_DELETED',
      `${role} ${id} was already deleted by ${entry.deletedBy.id} at seq ${entry.deletedBy.seq}.`,
      { id, deletedBy: entry.deletedBy.id, deletedAtSeq: entry.deletedBy.seq },
    );
  }
}

/** Invariant 7: only deleted content is erased, and only once. */
function checkErasureTarget(
  memoryId: string,
  entry: StoredEntry | undefined,
  id: string,
): asserts entry is StoredEntry {
  if (entry === undefined) {
    reject('ERASURE_TARGET_UNKNOWN', `Erasure target ${id} does not exist in memory ${memoryId}.`, {
      id,
      memoryId,
    });
  } else if (!isContentKind(entry.kind)) {
    reject(
      'ERASURE_TARGET_NOT_CONTENT',
      `Erasure target ${id} is a ${entry.kind}, not a message or document: only content is erased.`,
      { id, kind: entry.kind },
    );
  } else if (entry.erasedBy) {
    reject(
      'ALREADY_ERASED',
      `Erasure target ${id} was already erased by ${entry.erasedBy.id} at seq ${entry.erasedBy.seq}.`,
      { id, erasedBy: entry.erasedBy.id, erasedAtSeq: entry.erasedBy.seq },
    );
  } else if (entry.deletedBy === null) {
    reject(
      'ERASURE_TARGET_NOT_DELETED',
      `Erasure target ${id} is still visible: delete it first (or delete and erase it in one request).`,
      { id, memoryId },
    );
  }
}
