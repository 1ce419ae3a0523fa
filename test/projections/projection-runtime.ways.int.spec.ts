/**
 * The ways events reach a projection besides the inline hook and a plain `advance`
 * (src/projections/projection-runtime.ts): a writer's own appends on a store without inline
 * hooks, `advanceWithin` inside the SQLite store's transaction, a projection that is not inline,
 * one that handles some kinds of event only, `rebuild`, and the `applied` listeners told once events are committed. Real stores, real
 * SQLite files, projections written for the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sequenced } from '../../src/core/index.js';
import { openProjectionRuntime, type ProjectionRuntime } from '../../src/projections/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import type { Projection, ProjectionHandler } from '../../src/store/projection.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import Database from 'better-sqlite3';
import { deletionOf, message } from '../support/events.js';

interface SeqsHandler extends ProjectionHandler {
  seqs(memoryId: string): number[];
}

/**
 * A projection keeping each event's seq, and its stored body's type when `stored` (so it reads
 * stored forms), else its kind — `inline: false` when not `inline`.
 */
function seqsProjection(
  name: string,
  options: { stored: boolean; inline?: boolean },
): Projection & { open: (context: Parameters<Projection['open']>[0]) => SeqsHandler } {
  const table = `test_${name}`;
  return {
    name,
    version: 1,
    tables: [table],
    readsStoredForm: options.stored,
    inline: options.inline ?? true,
    open({ db, memoryKey, existingKey }) {
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (mem INTEGER, seq INTEGER, type TEXT,
        PRIMARY KEY (mem, seq)) STRICT`);
      const insert = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?)`);
      const last = db
        .prepare<[number], number>(`SELECT max(seq) FROM ${table} WHERE mem = ?`)
        .pluck();
      const all = db
        .prepare<[number], number>(`SELECT seq FROM ${table} WHERE mem = ? ORDER BY seq`)
        .pluck();
      const clear = db.prepare<[number]>(`DELETE FROM ${table} WHERE mem = ?`);
      const rows = (memoryId: string) => {
        const mem = existingKey(memoryId);
        return mem === undefined ? [] : all.all(mem);
      };
      return {
        checkpoint: (memoryId) => rows(memoryId).at(-1) ?? -1,
        apply(memoryId, events) {
          const mem = memoryKey(memoryId);
          for (const projected of events)
            insert.run(
              mem,
              projected.event.seq,
              options.stored ? projected.stored.type : projected.event.kind,
            );
          expect(last.get(mem)).toBe(events.at(-1)!.event.seq);
        },
        reset(memoryId) {
          const mem = existingKey(memoryId);
          if (mem !== undefined) clear.run(mem);
        },
        seqs: rows,
      };
    },
  };
}

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-projection-ways-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A runtime in a file of its own over `store` (no inline hooks), with both test projections. */
function ownFile(store: MemoryStore): { runtime: ProjectionRuntime; close(): void } {
  const db = new Database(join(dir, `own-${++n}.db`));
  const runtime = openProjectionRuntime(db, 'test file', store);
  runtime.register(seqsProjection('plain', { stored: false }));
  runtime.register(seqsProjection('stored', { stored: true }));
  return { runtime, close: () => db.close() };
}

const seqsOf = (runtime: ProjectionRuntime, name: string, memoryId = 'm') =>
  runtime.handler<SeqsHandler>(name)!.seqs(memoryId);

/**
 * A miniature of the vector windows: keeps the seqs of deletions, and reads the rows of the
 * projection `over` (`stored`, or `plain` where stored forms are not on hand; applied before it)
 * to report its checkpoint past every other event. Counts how often the runtime asks it.
 */
function deletionsProjection(db: Database.Database, over: 'stored' | 'plain' = 'stored') {
  const [table, deletion] =
    over === 'stored' ? ['test_stored', 'Deletion'] : ['test_plain', 'deletion'];
  const asked = { checkpoint: 0, apply: [] as number[][] };
  const kept = new Map<string, number[]>();
  const deletionsAfter = db
    .prepare<[string, number], number>(
      `SELECT min(seq) FROM ${table} WHERE mem = (SELECT mem FROM projection_memories
         WHERE memory_id = ?) AND seq > ? AND type = '${deletion}'`,
    )
    .pluck();
  const head = db
    .prepare<[string], number | null>(
      `SELECT max(seq) FROM ${table} WHERE mem = (SELECT mem FROM projection_memories
         WHERE memory_id = ?)`,
    )
    .pluck();
  const projection: Projection = {
    name: 'deletions',
    version: 1,
    tables: [],
    readsStoredForm: false,
    handles: ['deletion'],
    open: () => ({
      checkpoint(memoryId) {
        asked.checkpoint++;
        const through = kept.get(memoryId)?.at(-1) ?? -1;
        const next = deletionsAfter.get(memoryId, through);
        return next === null || next === undefined ? (head.get(memoryId) ?? -1) : next - 1;
      },
      apply(memoryId, events) {
        asked.apply.push(events.map(({ event }) => event.seq));
        const deletions = events.filter(({ event }) => event.kind === 'deletion');
        kept.set(memoryId, [
          ...(kept.get(memoryId) ?? []),
          ...deletions.map(({ event }) => event.seq),
        ]);
      },
      reset: (memoryId) => kept.delete(memoryId),
    }),
  };
  return { projection, asked, kept };
}

describe('a writer’s own appends on a store without inline hooks', () => {
  it('reach at once the projections that read no stored form; the others follow on advance', async () => {
    const store = openInMemoryStore();
    const { runtime, close } = ownFile(store);
    try {
      const heard: number[] = [];
      runtime.onApplied('plain', 'm', (events) => heard.push(...events.map((e) => e.seq)));
      const log = store.log('m');
      runtime.applyAppended('m', await log.append([message('one'), message('two')]));
      expect(seqsOf(runtime, 'plain')).toEqual([0, 1]);
      expect(seqsOf(runtime, 'stored')).toEqual([]);
      expect(heard).toEqual([0, 1]);
      expect(await runtime.advance('m')).toBe(1);
      expect(seqsOf(runtime, 'stored')).toEqual([0, 1]);
      expect(heard).toEqual([0, 1]);
    } finally {
      close();
      await store.close();
    }
  });

  it('leaves them to catch-up when the memory was not checked against the log and the append is not its first', async () => {
    const store = openInMemoryStore();
    const log = store.log('m');
    await log.append([message('before the runtime')]);
    const { runtime, close } = ownFile(store);
    try {
      runtime.applyAppended('m', await log.append([message('after')]));
      expect(seqsOf(runtime, 'plain')).toEqual([]);
      expect(await runtime.advance('m')).toBe(1);
      expect(seqsOf(runtime, 'plain')).toEqual([0, 1]);
    } finally {
      close();
      await store.close();
    }
  });

  it('reach only the projections that handle one of their kinds', async () => {
    const store = openInMemoryStore();
    const db = new Database(join(dir, `own-${++n}.db`));
    const runtime = openProjectionRuntime(db, 'test file', store);
    runtime.register(seqsProjection('plain', { stored: false }));
    const { projection, asked, kept } = deletionsProjection(db, 'plain');
    runtime.register(projection);
    try {
      const log = store.log('m');
      await runtime.advance('m');
      asked.checkpoint = 0;
      const written = await log.append([message('one'), message('two')]);
      runtime.applyAppended('m', written);
      // No deletion: not handed, not even asked its checkpoint, yet it reports the head.
      expect(asked).toEqual({ checkpoint: 0, apply: [] });
      expect(runtime.handler('deletions')!.checkpoint('m')).toBe(1);
      asked.checkpoint = 0;

      runtime.applyAppended(
        'm',
        await log.append([message('three'), deletionOf([written[0]!.id])]),
      );
      // Every checkpoint is read before any projection applies (applyEach), so it reports from
      // `plain` as of before this batch and is handed all of it.
      expect(asked.checkpoint).toBe(1);
      expect(asked.apply).toEqual([[2, 3]]);
      expect(kept.get('m')).toEqual([3]);
      expect(seqsOf(runtime, 'plain')).toEqual([0, 1, 2, 3]);
      expect(await runtime.advance('m')).toBe(3);
    } finally {
      db.close();
      await store.close();
    }
  });
});

describe('two processes on one SQLite file', () => {
  /** A runtime on `store`'s connection whose projection counts its resets in `resets`. */
  const runtimeOn = (
    store: ReturnType<typeof openSqliteStore>,
    resets: string[],
    source: Pick<MemoryStore, 'log' | 'memoryIds'> = store,
  ) => {
    const runtime = openProjectionRuntime(
      store.embedded!.database,
      'shared',
      source,
      store.embedded,
    );
    const projection = seqsProjection('stored', { stored: true });
    runtime.register({
      ...projection,
      open: (context) => {
        const handler = projection.open(context);
        const reset = (memoryId: string) => (resets.push(memoryId), handler.reset(memoryId));
        return { ...handler, reset };
      },
    });
    return runtime;
  };

  it('leave a projection the other moved past the head they read alone, not reset', async () => {
    const path = join(dir, `shared-${++n}.db`);
    const writer = openSqliteStore({ path });
    const reader = openSqliteStore({ path });
    let racing = true;
    // The reader's log: the writer appends (and applies) right after the reader read the head.
    const racedLog = (memoryId?: string) => {
      const log = reader.log(memoryId);
      const lastSeq = async () => {
        const head = await log.lastSeq();
        if (racing) {
          racing = false;
          await writer.log('m').append([message('appended meanwhile')]);
        }
        return head;
      };
      return Object.assign(Object.create(log) as typeof log, { lastSeq });
    };
    const readerResets: string[] = [];
    try {
      const writing = runtimeOn(writer, []);
      await writer.log('m').append([message('one'), message('two')]);
      expect(await writing.advance('m')).toBe(1);
      const reading = runtimeOn(reader, readerResets, {
        log: racedLog,
        memoryIds: () => reader.memoryIds(),
      });
      expect(await reading.advance('m')).toBeGreaterThanOrEqual(1);
      expect(racing).toBe(false);
      expect(readerResets).toEqual([]);
      expect(seqsOf(reading, 'stored')).toEqual([0, 1, 2]);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});

describe('the runtime in the SQLite store’s own file', () => {
  const open = (path: string) => {
    const store = openSqliteStore({ path });
    const runtime = openProjectionRuntime(store.embedded!.database, path, store, store.embedded);
    runtime.register(seqsProjection('stored', { stored: true }));
    runtime.register(seqsProjection('later', { stored: false, inline: false }));
    return { store, runtime };
  };

  it('tells listeners of an inline append after its commit, and leaves a projection that is not inline to advance', async () => {
    const { store, runtime } = open(join(dir, `store-${++n}.db`));
    try {
      const heard: Sequenced[][] = [];
      runtime.onApplied('stored', 'm', (events) => heard.push([...events]));
      const append = store.log('m').append([message('one'), message('two')]);
      expect(heard).toEqual([]);
      const stored = await append;
      expect(heard).toEqual([stored]);
      expect(seqsOf(runtime, 'stored')).toEqual([0, 1]);
      expect(seqsOf(runtime, 'later')).toEqual([]);
      expect(await runtime.advance('m')).toBe(1);
      expect(seqsOf(runtime, 'later')).toEqual([0, 1]);
    } finally {
      await store.close();
    }
  });

  it('applies inside an append’s transaction what another connection appended, once the memory was advanced', async () => {
    const path = join(dir, `store-${++n}.db`);
    const mine = open(path);
    const other = openSqliteStore({ path });
    try {
      await mine.store.log('m').append([message('mine')]);
      await other.log('m').append([message('theirs')]);
      const seen: boolean[] = [];
      const computeAt = (lastSeq: number | null) => {
        seen.push(mine.runtime.advanceWithin('m', lastSeq ?? -1));
        return undefined;
      };
      await mine.store.log('m').appendComputed!(computeAt);
      // Never advanced in this process: not checked against the log, so nothing applied.
      expect(seen).toEqual([false]);
      expect(seqsOf(mine.runtime, 'stored')).toEqual([0]);

      await mine.runtime.advance('m');
      await other.log('m').append([message('theirs again')]);
      await mine.store.log('m').appendComputed!((lastSeq) => {
        seen.push(mine.runtime.advanceWithin('m', lastSeq ?? -1));
        // Inside the transaction, before anything commits: both projections hold the head.
        seen.push(seqsOf(mine.runtime, 'stored').at(-1) === 2);
        seen.push(seqsOf(mine.runtime, 'later').at(-1) === 2);
        return [message('computed at 2')];
      });
      expect(seen).toEqual([false, true, true, true]);
      expect(seqsOf(mine.runtime, 'stored')).toEqual([0, 1, 2, 3]);
    } finally {
      await other.close();
      await mine.store.close();
    }
  });

  it('rebuilds every projection of a memory from the log', async () => {
    const { store, runtime } = open(join(dir, `store-${++n}.db`));
    try {
      await store.log('m').append([message('one'), message('two'), message('three')]);
      await runtime.advance('m');
      const progress: [number, number][] = [];
      expect(await runtime.rebuild('m', (done, total) => progress.push([done, total]))).toBe(2);
      expect(seqsOf(runtime, 'stored')).toEqual([0, 1, 2]);
      expect(seqsOf(runtime, 'later')).toEqual([0, 1, 2]);
      expect(progress.at(-1)).toEqual([3, 3]);
    } finally {
      await store.close();
    }
  });

  it('hands an append only to the projections that handle one of its kinds, and catch-ups everything', async () => {
    const path = join(dir, `store-${++n}.db`);
    const { store, runtime } = open(path);
    const { projection, asked, kept } = deletionsProjection(store.embedded!.database);
    runtime.register(projection);
    try {
      const log = store.log('m');
      await runtime.advance('m');
      asked.checkpoint = 0;
      const [first] = await log.append([message('one'), message('two')]);
      // No deletion: not handed, not even asked its checkpoint, yet it reports the head.
      expect(asked).toEqual({ checkpoint: 0, apply: [] });
      expect(runtime.handler('deletions')!.checkpoint('m')).toBe(1);
      asked.checkpoint = 0;

      await log.append([message('three'), deletionOf([first!.id])]);
      expect(asked.checkpoint).toBe(1);
      expect(asked.apply).toEqual([[3]]);
      expect(kept.get('m')).toEqual([3]);
      expect(seqsOf(runtime, 'stored')).toEqual([0, 1, 2, 3]);

      // A catch-up hands it what it did not hold, whatever the kinds.
      await runtime.rebuild('m');
      expect(asked.apply.at(-1)).toEqual([0, 1, 2, 3]);
      expect(kept.get('m')).toEqual([3]);
    } finally {
      await store.close();
    }
  });
});
