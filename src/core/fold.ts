/**
 * The fold behind `replay()` and every read model. It is incremental — a projection applies one
 * event at a time, a snapshot resumes from where it stopped — so it accumulates into private
 * mutable structures and hands out frozen `MemoryState` values. Nothing outside this file can
 * reach the accumulator, so the fold stays a pure function of the events it was given.
 */
import { assertNever, MemoryError } from './errors.js';
import {
  isContent,
  type ContentEvent,
  type Deletion,
  type Document,
  type MemoryEvent,
  type Message,
  type Sequenced,
} from './events.js';
import type { MemoryState, RecallStat } from './state.js';

/** An incremental fold of one memory's log. */
export interface Fold {
  /** Applies the next event; it must carry seq `lastSeq + 1`. */
  apply(event: MemoryEvent): void;
  /** The state after everything applied so far (frozen; cheap to call repeatedly). */
  state(): MemoryState;
  /** The seq of the last applied event, `null` when none. */
  readonly lastSeq: number | null;
  /**
   * Read-only access to the fold's own structures, without the copy `state()` makes: for read
   * models that answer as-of queries on large logs after every append. Valid until the next
   * `apply`; callers must not keep it.
   */
  view(): FoldView;
}

/** The live structures of a fold (see {@link Fold.view}). */
export interface FoldView {
  readonly messages: readonly Sequenced<Message>[];
  readonly documents: readonly Sequenced<Document>[];
  /** Deleted id -> the Deletion that deleted it. */
  readonly deleted: ReadonlyMap<string, Sequenced<Deletion>>;
  /** The deletion seq of every deleted message, ascending (deletions arrive in seq order). */
  readonly deletedMessageSeqs: readonly number[];
  /** The deletion seq of every deleted document, ascending. */
  readonly deletedDocumentSeqs: readonly number[];
  readonly lastSeq: number | null;
}

/** Starts a fold, empty or from a state produced earlier (a snapshot). */
export function startFold(from?: MemoryState): Fold {
  const messages: Sequenced<Message>[] = [...(from?.messages ?? [])];
  const documents: Sequenced<Document>[] = [...(from?.documents ?? [])];
  // Every id in the log: content maps to its event, recalls and deletions to null. One map, so
  // recording an id and detecting a repeated one is a single hash operation (the fold's hot path).
  const known = new Map<string, Sequenced<ContentEvent> | null>();
  for (const item of messages) known.set(item.id, item);
  for (const item of documents) known.set(item.id, item);
  // A snapshot keeps the deletions' ids (in `deleted`) but not the recalls', so a log resumed
  // from a snapshot cannot detect a recall id repeated across the boundary; guarded stores never
  // write one (invariant 9), and a full replay detects it.
  for (const deletion of Object.values(from?.deleted ?? {})) known.set(deletion.id, null);
  const deleted = new Map<string, Sequenced<Deletion>>(Object.entries(from?.deleted ?? {}));
  const deletedSeqsOf = (kind: 'message' | 'document') =>
    [...deleted]
      .filter(([id]) => known.get(id)?.kind === kind)
      .map(([, deletion]) => deletion.seq)
      .sort((a, b) => a - b);
  const deletedMessageSeqs: number[] = deletedSeqsOf('message');
  const deletedDocumentSeqs: number[] = deletedSeqsOf('document');
  const recallStats = new Map<string, RecallStat>(Object.entries(from?.recallStats ?? {}));
  let lastSeq = from?.lastSeq ?? null;
  let cached: MemoryState | undefined = from;

  const violated = (event: MemoryEvent, why: string): never => {
    throw new MemoryError(
      'LOG_INVARIANT_VIOLATED',
      `Event ${event.id} at seq ${event.seq} ${why}.`,
      {
        details: { id: event.id, seq: event.seq },
      },
    );
  };

  function apply(event: MemoryEvent): void {
    const expected = lastSeq === null ? 0 : lastSeq + 1;
    if (event.seq === null) {
      throw new MemoryError(
        'REPLAY_ORDER',
        `Event ${event.id} has no seq; only stored events can be replayed.`,
        {
          details: { id: event.id, expectedSeq: expected },
        },
      );
    }
    if (event.seq !== expected) {
      const why = event.seq < expected ? 'out of order' : 'after a gap';
      throw new MemoryError(
        'REPLAY_ORDER',
        `Event ${event.id} has seq ${event.seq} but seq ${expected} was expected (${why}).`,
        {
          details: { id: event.id, seq: event.seq, expectedSeq: expected },
        },
      );
    }
    const seq = event.seq;
    const size = known.size;
    known.set(event.id, isContent(event) ? (event as Sequenced<ContentEvent>) : null);
    if (known.size === size) violated(event, 'repeats an id already in the log');
    switch (event.kind) {
      case 'message':
        messages.push(event as Sequenced<Message>);
        break;
      case 'document':
        documents.push(event as Sequenced<Document>);
        break;
      case 'recall':
        for (const id of event.recalled.length > 1 ? new Set(event.recalled) : event.recalled) {
          if (!known.get(id)) violated(event, `recalls ${id}, which is not content in this memory`);
          if (deleted.has(id)) violated(event, `recalls ${id}, which was already deleted`);
          const count = (recallStats.get(id)?.count ?? 0) + 1;
          recallStats.set(
            id,
            Object.freeze({ count, lastRecalledAt: event.timestamp, lastRecalledSeq: seq }),
          );
        }
        break;
      case 'deletion':
        for (const id of event.targets) {
          if (!known.get(id)) violated(event, `deletes ${id}, which is not content in this memory`);
          if (deleted.has(id)) violated(event, `deletes ${id}, which was already deleted`);
          deleted.set(id, event as Sequenced<Deletion>);
          (known.get(id)!.kind === 'message' ? deletedMessageSeqs : deletedDocumentSeqs).push(seq);
        }
        break;
      default:
        assertNever(event, 'event kind');
    }
    lastSeq = seq;
    cached = undefined;
  }

  function state(): MemoryState {
    cached ??= Object.freeze({
      messages: Object.freeze([...messages]),
      documents: Object.freeze([...documents]),
      visibleMessages: Object.freeze(messages.filter((m) => !deleted.has(m.id))),
      visibleDocuments: Object.freeze(documents.filter((d) => !deleted.has(d.id))),
      deleted: Object.freeze(Object.fromEntries(deleted)),
      recallStats: Object.freeze(Object.fromEntries(recallStats)),
      lastSeq,
    });
    return cached;
  }

  return {
    apply,
    state,
    get lastSeq() {
      return lastSeq;
    },
    view: () => ({
      messages,
      documents,
      deleted,
      deletedMessageSeqs,
      deletedDocumentSeqs,
      lastSeq,
    }),
  };
}
