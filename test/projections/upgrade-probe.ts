/**
 * A projection with two layouts answering one question (how many events of a memory, how many
 * characters of content, up to which seq), for the layout-upgrade tests: layout 1 keeps one row
 * of totals per memory, layout 2 one row per memory and kind. Each reads only its own tables,
 * so an answer says which layout gave it. Layout 2 keeps layout 1 as its `previous`.
 */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../../src/core/index.js';
import type { LayoutBuildProgress, ProjectionRuntime } from '../../src/projections/index.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../../src/store/projection.port.js';

/** The probe's name on the runtime. */
export const PROBE = 'upgrade-probe';

/** One answer, with the layout that gave it. */
export interface ProbeTotals {
  readonly layout: number;
  readonly events: number;
  readonly chars: number;
  readonly checkpoint: number;
}

/** The probe's handler: a projection handler that answers {@link ProbeTotals}. */
export interface ProbeHandler extends ProjectionHandler {
  totals(memoryId: string): ProbeTotals;
}

/** The layouts a runtime is building now (not those that switched). */
export function building(runtime: Pick<ProjectionRuntime, 'layoutBuilds'>): LayoutBuildProgress[] {
  return runtime.layoutBuilds().filter(({ switched }) => !switched);
}

/** The characters of content an event adds (a message's content, a document's text). */
export function charsOf(event: Sequenced): number {
  if (event.kind === 'message') return event.content?.length ?? 0;
  return event.kind === 'document' ? (event.text?.length ?? 0) : 0;
}

const nameOf = (context: ProjectionContext, table: string) =>
  `"${(context.table?.(table) ?? table).replaceAll('"', '""')}"`;

/** Layout 1: one row of totals per memory. */
export const probeLayout1: Projection = {
  name: PROBE,
  version: 1,
  tables: ['probe_totals'],
  readsStoredForm: false,
  open(context): ProbeHandler {
    const { db } = context;
    const t = nameOf(context, 'probe_totals');
    db.exec(`CREATE TABLE IF NOT EXISTS ${t} (mem INTEGER PRIMARY KEY, events INTEGER NOT NULL,
      chars INTEGER NOT NULL, last_seq INTEGER NOT NULL) STRICT`);
    const row = db.prepare<[number], { events: number; chars: number; last_seq: number }>(
      `SELECT events, chars, last_seq FROM ${t} WHERE mem = ?`,
    );
    const add = db.prepare<[number, number, number, number]>(
      `INSERT INTO ${t} (mem, events, chars, last_seq) VALUES (?, ?, ?, ?)
         ON CONFLICT (mem) DO UPDATE SET events = events + excluded.events,
           chars = chars + excluded.chars, last_seq = excluded.last_seq`,
    );
    const reset = db.prepare<[number]>(`DELETE FROM ${t} WHERE mem = ?`);
    const found = (memoryId: string) => {
      const mem = context.existingKey(memoryId);
      return mem === undefined ? undefined : row.get(mem);
    };
    return {
      checkpoint: (memoryId) => found(memoryId)?.last_seq ?? -1,
      apply(memoryId, events) {
        const chars = events.reduce((sum, { event }) => sum + charsOf(event), 0);
        add.run(context.memoryKey(memoryId), events.length, chars, events.at(-1)!.event.seq);
      },
      reset(memoryId) {
        const mem = context.existingKey(memoryId);
        if (mem !== undefined) reset.run(mem);
      },
      totals(memoryId) {
        const totals = found(memoryId);
        return {
          layout: 1,
          events: totals?.events ?? 0,
          chars: totals?.chars ?? 0,
          checkpoint: totals?.last_seq ?? -1,
        };
      },
    };
  },
};

/** Layout 2: one row per memory and kind; layout 1 is its previous. */
export const probeLayout2: Projection = {
  name: PROBE,
  version: 2,
  tables: ['probe_by_kind', 'probe_by_kind_seq'],
  readsStoredForm: false,
  previous: probeLayout1,
  open(context): ProbeHandler {
    const { db } = context;
    const t = nameOf(context, 'probe_by_kind');
    db.exec(`CREATE TABLE IF NOT EXISTS ${t} (mem INTEGER NOT NULL, kind TEXT NOT NULL,
      events INTEGER NOT NULL, chars INTEGER NOT NULL, last_seq INTEGER NOT NULL,
      PRIMARY KEY (mem, kind)) STRICT, WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS ${nameOf(context, 'probe_by_kind_seq')} ON ${t} (mem, last_seq)`);
    const sum = db.prepare<[number], { events: number; chars: number; last_seq: number }>(
      `SELECT coalesce(sum(events), 0) AS events, coalesce(sum(chars), 0) AS chars,
         coalesce(max(last_seq), -1) AS last_seq FROM ${t} WHERE mem = ?`,
    );
    const add = addByKind(db, t);
    const reset = db.prepare<[number]>(`DELETE FROM ${t} WHERE mem = ?`);
    const totals = (memoryId: string) => {
      const mem = context.existingKey(memoryId);
      return mem === undefined ? { events: 0, chars: 0, last_seq: -1 } : sum.get(mem)!;
    };
    return {
      checkpoint: (memoryId) => totals(memoryId).last_seq,
      apply: (memoryId, events) => add(context.memoryKey(memoryId), events),
      reset(memoryId) {
        const mem = context.existingKey(memoryId);
        if (mem !== undefined) reset.run(mem);
      },
      totals(memoryId) {
        const { events, chars, last_seq } = totals(memoryId);
        return { layout: 2, events, chars, checkpoint: last_seq };
      },
    };
  },
};

function addByKind(db: Database.Database, table: string) {
  const add = db.prepare<[number, string, number, number, number]>(
    `INSERT INTO ${table} (mem, kind, events, chars, last_seq) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (mem, kind) DO UPDATE SET events = events + excluded.events,
         chars = chars + excluded.chars, last_seq = excluded.last_seq`,
  );
  return (mem: number, events: readonly ProjectedEvent[]) => {
    const byKind = new Map<string, { events: number; chars: number }>();
    for (const { event } of events) {
      const sums = byKind.get(event.kind) ?? { events: 0, chars: 0 };
      sums.events++;
      sums.chars += charsOf(event);
      byKind.set(event.kind, sums);
    }
    const last = events.at(-1)!.event.seq;
    for (const [kind, sums] of byKind) add.run(mem, kind, sums.events, sums.chars, last);
  };
}
