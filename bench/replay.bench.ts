/**
 * replay() throughput on a 1 M-event log, against baselines measured in the same run (DESIGN.md
 * "Budgets": `replay()` >= 0.8x a bare fold loop over the same events).
 *
 * The baseline that budget is about is {@link bareFold}: a hand-written fold that gathers the
 * same information a `MemoryState` holds (messages and documents in log order, every id in a Map
 * for existence checks, the deleted map, recall counts with the last recall's seq and time) in
 * plain loops, with no validation, no ordering checks and no frozen output. `replay()` returns a
 * state whose derived fields (visible lists, `deleted`, `recallStats`) are built on first read,
 * so a second row times replay() plus reading every field. Two smaller loops are reported for
 * scale: one that only counts kinds, and one that only indexes ids.
 */
import {
  replay,
  type Deletion,
  type MemoryEvent,
  type MemoryState,
  type StoredDocument,
  type StoredMessage,
} from '../src/core/index.js';
import { report, syntheticLog, timeMs } from './support.js';

/** The mutable recall statistics of one item in {@link bareFold}. */
interface BareRecallStat {
  count: number;
  lastRecalledAt: string;
  lastRecalledSeq: number;
}

/** What {@link bareFold} gathers: the information of a `MemoryState`, in plain structures. */
interface BareState {
  readonly messages: StoredMessage[];
  readonly documents: StoredDocument[];
  readonly byId: Map<string, MemoryEvent>;
  readonly deleted: Map<string, Deletion>;
  readonly recallStats: Map<string, BareRecallStat>;
  readonly lastSeq: number | null;
}

/** The bare baseline: the fold with nothing but the bookkeeping (see the file comment). */
export function bareFold(log: readonly MemoryEvent[]): BareState {
  const messages: StoredMessage[] = [];
  const documents: StoredDocument[] = [];
  const byId = new Map<string, MemoryEvent>();
  const deleted = new Map<string, Deletion>();
  const recallStats = new Map<string, BareRecallStat>();
  let lastSeq: number | null = null;
  for (const event of log) {
    byId.set(event.id, event);
    switch (event.kind) {
      case 'message':
        messages.push(event);
        break;
      case 'document':
        documents.push(event);
        break;
      case 'recall':
        for (const id of event.recalled) {
          const stat = recallStats.get(id);
          if (stat === undefined) {
            recallStats.set(id, {
              count: 1,
              lastRecalledAt: event.timestamp,
              lastRecalledSeq: event.seq!,
            });
          } else {
            stat.count++;
            stat.lastRecalledAt = event.timestamp;
            stat.lastRecalledSeq = event.seq!;
          }
        }
        break;
      case 'deletion':
        for (const id of event.targets) if (!deleted.has(id)) deleted.set(id, event);
        break;
    }
    lastSeq = event.seq;
  }
  return { messages, documents, byId, deleted, recallStats, lastSeq };
}

/** Reads every field of `state`, so the lazily built ones are built; returns a size to sink. */
function readEveryField(state: MemoryState): number {
  // (No Object.keys: enumerating a 240k-key object costs more than building it.)
  const records = [state.deleted, state.recallStats].filter((r) => Object.isFrozen(r));
  return state.visibleMessages.length + state.visibleDocuments.length + records.length;
}

/** The best of `runs` timings of `work`, in ms (the first run also warms the JIT up). */
async function bestMs(work: () => unknown, runs = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, await timeMs(work));
  return best;
}

/** Runs the replay benchmark on a synthetic log of `n` events and reports it. */
export async function benchReplay(n = 1_000_000): Promise<void> {
  const log = syntheticLog(n);
  const counts = { message: 0, document: 0, recall: 0, deletion: 0, erasure: 0 };
  const countMs = await bestMs(() => {
    for (const e of log) counts[e.kind]++;
  });
  const indexMs = await bestMs(() => {
    const byId = new Map<string, unknown>();
    for (const e of log) byId.set(e.id, e);
  });
  // Interleaved, so all three see the same machine load and heap state.
  let baselineMs = Infinity;
  let replayMs = Infinity;
  let readMs = Infinity;
  let sink = 0;
  for (let i = 0; i < 5; i++) {
    baselineMs = Math.min(baselineMs, await timeMs(() => (sink += bareFold(log).byId.size)));
    replayMs = Math.min(replayMs, await timeMs(() => (sink += replay(log).messages.length)));
    // replay() builds the derived fields on first read: this row reads every one of them.
    readMs = Math.min(readMs, await timeMs(() => (sink += readEveryField(replay(log)))));
  }
  if (sink === 0) throw new Error('nothing was folded');
  report('replay', {
    events: n,
    'replay ms (best of 5)': replayMs,
    'replay events/s': Math.round(n / (replayMs / 1000)),
    'baseline (bare fold) ms (best of 5)': baselineMs,
    'baseline events/s': Math.round(n / (baselineMs / 1000)),
    'speed ratio = baseline ms / replay ms': baselineMs / replayMs,
    'budget (DESIGN): speed ratio >=': 0.8,
    'replay + read every field ms (best of 5)': readMs,
    'speed ratio = baseline ms / (replay + read) ms': baselineMs / readMs,
    'extra: count kinds ms': countMs,
    'extra: index ids in a Map ms': indexMs,
    'extra: speed ratio = index ms / replay ms': indexMs / replayMs,
  });
}
