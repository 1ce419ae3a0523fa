/**
 * Handlers that find their own place (`applyNext`, src/store/projection.port.ts): given events
 * that overlap their checkpoint they apply only what follows it, given a gap they apply nothing
 * (the catch-up's to fill), and an append's inline hook leaves them to it instead of asking their
 * checkpoint first. The tree's and the read models' handlers both have it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProjectionRuntime } from '../../src/projections/index.js';
import {
  openEmbeddedReadModels,
  readModelsProjection,
  type ReadModelsHandler,
} from '../../src/read-models/index.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionHandler,
} from '../../src/store/projection.port.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { toBase64 } from '../../src/verify/index.js';
import { doc, message } from '../support/events.js';
import { drive, openTestTree } from './tree-drive.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-apply-next-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bare SQLite store holding six events of memory `m`, and those events as projections get them. */
async function sixEvents(name: string): Promise<{ store: MemoryStore; events: ProjectedEvent[] }> {
  const store = openSqliteStore({ path: join(dir, `${name}.db`) });
  await store
    .log('m')
    .append([message('one'), doc('two'), message('three'), message('four'), doc('five')]);
  await store.log('m').append([message('six')]);
  const events: ProjectedEvent[] = [];
  for await (const projected of store.log('m').readProjected()) events.push(projected);
  return { store, events };
}

const seqsOf = (events: readonly ProjectedEvent[]) => events.map(({ event }) => event.seq);

describe('a handler that finds its own place (applyNext)', () => {
  it('the tree applies what follows its checkpoint, skips what it holds, and leaves a gap alone', async () => {
    const { store, events } = await sixEvents('tree');
    try {
      const { tree, db } = openTestTree();
      const next = (from: number, to: number) =>
        db.transaction(() => seqsOf(tree.applyNext!('m', events.slice(from, to))))();
      expect(next(0, 3)).toEqual([0, 1, 2]);
      expect(next(1, 4)).toEqual([3]);
      expect(next(5, 6)).toEqual([]);
      expect(tree.checkpoint('m')).toBe(3);
      expect(next(4, 6)).toEqual([4, 5]);
      // The same leaves as a tree driven by `apply` alone.
      const reference = openTestTree();
      await drive(reference.db, reference.tree, store.log('m'));
      expect(toBase64(tree.root('m', 6))).toBe(toBase64(reference.tree.root('m', 6)));
    } finally {
      await store.close();
    }
  });

  it('the read models apply what follows their checkpoint once, totals included, and leave a gap alone', async () => {
    const { store, events } = await sixEvents('read-models');
    const models = openEmbeddedReadModels(store.embedded!);
    const runtime = openProjectionRuntime(models.database, models.location, store);
    try {
      runtime.register(readModelsProjection(models));
      const handler = runtime.handler<ReadModelsHandler>('read-models')!;
      const next = (from: number, to: number) =>
        models.database.transaction(() =>
          seqsOf(handler.applyNext!('m', events.slice(from, to))),
        )();
      expect(next(0, 3)).toEqual([0, 1, 2]);
      expect(next(1, 4)).toEqual([3]);
      expect(next(5, 6)).toEqual([]);
      expect(handler.checkpoint('m')).toBe(3);
      expect(next(4, 6)).toEqual([4, 5]);
      // Each event counted once: the totals after seq 5 are those of the six events.
      const page = handler.layout.queries.statePage(handler.layout.keyOf('m'), 5, {
        limit: 10,
        offset: 0,
        byteBudget: 1_000_000,
      });
      expect(page.totals).toEqual(
        expect.objectContaining({ messages: 4, documents: 2, deleted: 0 }),
      );
      expect(page.visibleMessages.map(({ seq }) => seq)).toEqual([0, 2, 3, 5]);
    } finally {
      runtime.close();
      await store.close();
    }
  });

  it("is called by an append's inline hook instead of asking the handler's checkpoint first", async () => {
    const store = openSqliteStore({ path: join(dir, 'hook.db') });
    const asked: string[] = [];
    const spy: Projection = {
      name: 'spy',
      version: 1,
      tables: [],
      readsStoredForm: false,
      open: (): ProjectionHandler => {
        let at = -1;
        return {
          checkpoint: () => {
            asked.push('checkpoint');
            return at;
          },
          apply: () => {
            throw new Error('the hook asks applyNext');
          },
          applyNext: (_memoryId, events) => {
            asked.push(`applyNext ${seqsOf(events).join(',')}`);
            at = events.at(-1)!.event.seq;
            return events;
          },
          reset: () => undefined,
        };
      },
    };
    const runtime = openProjectionRuntime(store.embedded!.database, 'hook', store, store.embedded);
    try {
      runtime.register(spy);
      asked.length = 0;
      await store.log('m').append([message('one'), message('two')]);
      await store.log('m').append([message('three')]);
      expect(asked).toEqual(['applyNext 0,1', 'applyNext 2']);
    } finally {
      runtime.close();
      await store.close();
    }
  });
});
