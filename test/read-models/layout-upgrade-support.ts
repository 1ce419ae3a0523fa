/**
 * For the read models' layout-upgrade tests: a layout to come made from the real code (this
 * release's layout plus one index, keeping this release's as `previous`), a log of messages,
 * documents, recalls and deletions written by the bare store, and the answers `replay()` gives.
 */
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  replay,
  type MemoryEvent,
  type MemoryState,
  type Sequenced,
} from '../../src/core/index.js';
import type { Memledger, MemoryHandle } from '../../src/memory/index.js';
import { pageOfState } from '../../src/memory/index.js';
import {
  READ_MODEL_LAYOUT,
  READ_MODELS,
  type ReadModelLayoutCode,
  type ReadModelsHandler,
} from '../../src/read-models/index.js';
import type { EventLog } from '../../src/store/event-log.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

/** Distinct words content is searched by (`t0` .. `t496`), a few hundred items each at 100 k. */
export const TERMS = 497;

/** This release's layout with one index more: the next layout, keeping this one as previous. */
export const nextLayout: ReadModelLayoutCode = {
  version: READ_MODEL_LAYOUT.version + 1,
  tables: [...READ_MODEL_LAYOUT.tables, 'rm_items_by_kind'],
  searchTables: READ_MODEL_LAYOUT.searchTables,
  openSearch: READ_MODEL_LAYOUT.openSearch,
  previous: READ_MODEL_LAYOUT,
  open(file, naming) {
    const layout = READ_MODEL_LAYOUT.open(file, naming);
    file.db.exec(
      `CREATE INDEX IF NOT EXISTS ${naming('rm_items_by_kind')} ON ${layout.names.rm_items} (kind, mem, seq)`,
    );
    return layout;
  },
};

/**
 * The upgrade the tests make: from the layout this release keeps as `previous` to its own when
 * it keeps one (a release that bumps the layout), else from its own to {@link nextLayout}.
 */
export const upgrade: { readonly from: ReadModelLayoutCode; readonly to: ReadModelLayoutCode } =
  READ_MODEL_LAYOUT.previous
    ? { from: READ_MODEL_LAYOUT.previous, to: READ_MODEL_LAYOUT }
    : { from: READ_MODEL_LAYOUT, to: nextLayout };

/** The log as the client knows it, and its fold. */
export class Oracle {
  readonly log: Sequenced[] = [];
  state: MemoryState = replay([]);

  add(events: readonly Sequenced[]): void {
    this.log.push(...events);
    this.state = replay(events, { from: this.state });
  }

  /** Ids of visible content holding `term`. */
  visibleWith(term: string): string[] {
    const { visibleMessages, visibleDocuments } = this.state;
    return [...visibleMessages, ...visibleDocuments]
      .filter((item) =>
        (item.kind === 'message' ? (item.content ?? '') : `${item.name} ${item.text ?? ''}`)
          .split(' ')
          .includes(term),
      )
      .map((item) => item.id)
      .sort();
  }
}

/**
 * Writes `n` events to `memoryId` in `path` with the bare store (no read models), in batches:
 * messages, a document in ten, a recall of two recent items in fifty, a deletion in a hundred.
 */
export async function writeLog(path: string, memoryId: string, n: number): Promise<Oracle> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  try {
    return await writeEvents(store.log(memoryId), n);
  } finally {
    await store.close();
  }
}

/** {@link writeLog} on any store's log. */
export async function writeEvents(log: EventLog, n: number): Promise<Oracle> {
  const oracle = new Oracle();
  const content: string[] = [];
  const deleted = new Set<string>();
  const live = (back: number) => {
    for (let i = content.length - 1 - back; i >= 0; i--)
      if (!deleted.has(content[i]!)) return content[i]!;
    return undefined;
  };
  let batch: MemoryEvent[] = [];
  for (let i = 0; i < n; i++) {
    const term = `t${i % TERMS}`;
    let event: MemoryEvent;
    const target = live(7);
    const recalled = [live(0), live(3)].filter((id) => id !== undefined);
    if (i % 100 === 99 && target) {
      event = createDeletion({ targets: [target], reason: `cleanup ${i}` });
      deleted.add(target);
    } else if (i % 50 === 49 && recalled.length > 0)
      event = createRecall({ query: `q ${term}`, recalled: [...new Set(recalled)] });
    else if (i % 10 === 5) event = createDocument({ name: `d${i}`, text: `doc ${i} ${term}` });
    else event = createMessage({ speaker: 'user', content: `note ${i} ${term}` });
    if (event.kind === 'message' || event.kind === 'document') content.push(event.id);
    batch.push(event);
    if (batch.length === 1000 || i === n - 1) {
      oracle.add(await log.append(batch));
      batch = [];
    }
  }
  return oracle;
}

/** The table names the serving read-models layout reads. */
export function servingItems(memledger: Memledger): string {
  return memledger.projections.handler<ReadModelsHandler>(READ_MODELS)!.layout.names.rm_items;
}

/** The layouts being built now (not those that switched). */
export function building(memledger: Memledger) {
  return memledger.projections.layoutBuilds().filter(({ switched }) => !switched);
}

/** One query of the client's round, checked against the oracle at the seq it answered. */
export async function askAndCheck(
  memory: MemoryHandle,
  oracle: Oracle,
  round: number,
): Promise<void> {
  const { state, log } = oracle;
  switch (round % 4) {
    case 0: {
      expect(await memory.statePage({ limit: 50 })).toEqual(pageOfState(state, { limit: 50 }));
      const n = (round * 7919) % log.length;
      expect(await memory.statePage({ upToSeq: n, limit: 20 })).toEqual(
        pageOfState(replay(log, { upToSeq: n }), { limit: 20 }),
      );
      break;
    }
    case 1: {
      const item = [...state.messages, ...state.documents][(round * 104729) % log.length];
      if (!item) break;
      const history = await memory.history(item.id);
      const recalls = log.filter((e) => e.kind === 'recall' && e.recalled.includes(item.id));
      expect(history.event).toEqual(item);
      expect(history.recalls.map((recall) => recall.seq)).toEqual(recalls.map((e) => e.seq));
      expect(history.deletedBy).toEqual(state.deleted[item.id] ?? null);
      break;
    }
    case 2:
      expect(await memory.recallStats()).toEqual(state.recallStats);
      break;
    default: {
      const term = `t${round % TERMS}`;
      const hits = await memory.search(term, { limit: 1000 });
      expect(hits.map((hit) => hit.id).sort()).toEqual(oracle.visibleWith(term));
    }
  }
}
