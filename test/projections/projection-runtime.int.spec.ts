/**
 * The projection runtime (src/projections/projection-runtime.ts) on every store, with a real
 * projection written for the test: it keeps one row per event (seq, id, kind, the stored form's
 * version and a digest of its stored body) in SQLite tables of its own. On SQLite it is applied
 * inside each append's transaction; elsewhere, and for what a projection did not see, by
 * `advance` from the log.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import type { Projection, ProjectionHandler } from '../../src/store/projection.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { message } from '../support/events.js';

/** A row of the test projection. */
interface Row {
  seq: number;
  id: string;
  kind: string;
  version: number;
  digest: string;
}

interface RowsHandler extends ProjectionHandler {
  rows(memoryId: string): Row[];
}

/** The test projection at layout `version`; `fail` makes its apply throw (a broken projection). */
function rowsProjection(version = 1, fail = () => false): Projection {
  const table = 'test_rows';
  return {
    name: 'test-rows',
    version,
    tables: [table],
    open({ db, memoryKey, existingKey }): RowsHandler {
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (mem INTEGER, seq INTEGER, id TEXT,
        kind TEXT, version INTEGER, digest TEXT, PRIMARY KEY (mem, seq)) STRICT`);
      const insert = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?, ?, ?)`);
      const last = db
        .prepare<[number], number>(`SELECT max(seq) FROM ${table} WHERE mem = ?`)
        .pluck();
      const all = db.prepare<[number], Row>(
        `SELECT seq, id, kind, version, digest FROM ${table} WHERE mem = ? ORDER BY seq`,
      );
      const clear = db.prepare<[number]>(`DELETE FROM ${table} WHERE mem = ?`);
      return {
        checkpoint: (memoryId) => {
          const mem = existingKey(memoryId);
          return mem === undefined ? -1 : (last.get(mem) ?? -1);
        },
        apply(memoryId, events) {
          if (fail()) throw new Error('a broken projection');
          const mem = memoryKey(memoryId);
          for (const { event, stored } of events) {
            const digest = createHash('sha256').update(JSON.stringify(stored.body)).digest('hex');
            insert.run(mem, event.seq, event.id, event.kind, stored.version, digest);
          }
        },
        reset(memoryId) {
          const mem = existingKey(memoryId);
          if (mem !== undefined) clear.run(mem);
        },
        rows(memoryId) {
          const mem = existingKey(memoryId);
          return mem === undefined ? [] : all.all(mem);
        },
      };
    },
  };
}

let dir: string;
let esdb: EsdbTestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-projections-'));
  esdb = await startEsdbTestServer();
});
afterAll(async () => {
  await esdb.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** Each kind opens fresh data; `reopen` opens the same data again. */
const kinds: { name: string; inline: boolean; open(): () => MemoryStore; readModels?: string }[] = [
  {
    name: 'SQLite',
    inline: true,
    open: () => {
      const path = join(dir, `store-${++n}.db`);
      return () => openSqliteStore({ path });
    },
  },
  {
    name: 'EventStoreDB (in-process test server)',
    inline: false,
    open: () => {
      const prefix = `projections-${++n}-`;
      return () =>
        openEventStoreDbStore(
          { connectionString: esdb.connectionString },
          { streamPrefix: prefix },
        );
    },
  },
];

const handlerOf = (memledger: Memledger) =>
  memledger.projections.handler<RowsHandler>('test-rows')!;

for (const kind of kinds) {
  describe(`projection runtime on ${kind.name}`, () => {
    it(
      kind.inline
        ? 'applies an append inside its transaction: the projection holds it when the append returns'
        : 'applies what the log holds past the checkpoint on advance',
      async () => {
        const opener = kind.open();
        const memledger = openMemledger({ store: opener(), readModels: join(dir, `rm-${n}.db`) });
        try {
          memledger.projections.register(rowsProjection());
          const memory = await memledger.memory('m');
          const written = await memory.recordMessage({ speaker: 'user', content: 'hello' });
          const handler = handlerOf(memledger);
          if (kind.inline) expect(handler.checkpoint('m')).toBe(written.seq);
          expect(await memledger.projections.advance('m')).toBe(written.seq);
          expect(handler.rows('m')).toEqual([
            expect.objectContaining({ seq: 0, id: written.id, kind: 'message', version: 3 }),
          ]);
        } finally {
          await memledger.close();
        }
      },
    );

    it('catches up a projection registered after the log was written, and a version change rebuilds it', async () => {
      const opener = kind.open();
      const bare = opener();
      const log = bare.log('m');
      // More than one catch-up chunk (2000 events).
      for (let i = 0; i < 5; i++)
        await log.append(Array.from({ length: 500 }, (_, j) => message(`${i}-${j}`)));
      await bare.close();

      const readModels = join(dir, `rm-${n}.db`);
      const first = openMemledger({ store: opener(), readModels });
      first.projections.register(rowsProjection(1));
      expect(await first.projections.advance('m')).toBe(2499);
      const rows = handlerOf(first).rows('m');
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 2500 }, (_, i) => i));
      await first.close();

      const second = openMemledger({ store: opener(), readModels });
      try {
        second.projections.register(rowsProjection(2));
        // The tables of version 1 were dropped: nothing until the log is applied again.
        expect(handlerOf(second).checkpoint('m')).toBe(-1);
        expect(await second.projections.advance('m')).toBe(2499);
        expect(handlerOf(second).rows('m')).toEqual(rows);
      } finally {
        await second.close();
      }
    }, 90_000);

    it('never fails an append for a projection that throws; it catches up on the next advance', async () => {
      let broken = true;
      const opener = kind.open();
      const memledger = openMemledger({ store: opener(), readModels: join(dir, `rm-${n}.db`) });
      try {
        memledger.projections.register(rowsProjection(1, () => broken));
        const memory = await memledger.memory('m');
        const written = await memory.recordMessage({ speaker: 'user', content: 'still written' });
        expect(handlerOf(memledger).checkpoint('m')).toBe(-1);
        broken = false;
        expect(await memledger.projections.advance('m')).toBe(written.seq);
        expect(
          handlerOf(memledger)
            .rows('m')
            .map((r) => r.id),
        ).toEqual([written.id]);
      } finally {
        await memledger.close();
      }
    });
  });
}

describe('projection runtime on the in-memory store', () => {
  it('gives the same rows as SQLite for the same events', async () => {
    const rowsOn = async (store: MemoryStore) => {
      const memledger = openMemledger({ store });
      try {
        memledger.projections.register(rowsProjection());
        const memory = await memledger.memory('same');
        for (let i = 0; i < 3; i++)
          await memory.recordMessage({
            id: `0193e000-0000-7000-8000-00000000000${i}`,
            timestamp: '2026-01-01T00:00:00Z',
            speaker: 'user',
            content: `event ${i}`,
          });
        await memledger.projections.advance('same');
        return handlerOf(memledger).rows('same');
      } finally {
        await memledger.close();
      }
    };
    expect(await rowsOn(openInMemoryStore())).toEqual(
      await rowsOn(openSqliteStore({ path: join(dir, 'same.db') })),
    );
  });
});
