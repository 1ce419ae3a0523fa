/**
 * The read models answer exactly what `replay()` of the log prefix answers — state pages, whole
 * states, totals, recall statistics, search sets and item histories, now and as of every seq —
 * on every store, after a restart that finds them behind the log, and after a rebuild.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { isContent, replay, type Sequenced } from '../../src/core/index.js';
import { openMemledger, pageOfState, type MemoryHandle } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

/** A store whose every `connect()` reaches the same data; read models in `readModels`. */
interface Kind {
  readonly name: string;
  connect(): MemoryStore;
  readonly readModels: () => string;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'deploy', 'key', 'secret', 'runbook'];
let dir = '';
let esdb: EsdbTestServer | undefined;
let memory: MemoryStore | undefined;
let run = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-rm-property-'));
  esdb = await startEsdbTestServer();
});
afterAll(async () => {
  await esdb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kinds: Kind[] = [
  {
    name: 'in-memory',
    connect: () => (memory ??= openInMemoryStore()),
    readModels: () => join(dir, 'in-memory.read-models.db'),
  },
  {
    name: 'SQLite',
    connect: () => openSqliteStore({ path: join(dir, 'log.db') }),
    readModels: () => ':memory:',
  },
  {
    name: 'EventStoreDB (in-process test server)',
    connect: () => openEventStoreDbStore({ connectionString: esdb!.connectionString }),
    readModels: () => join(dir, 'esdb.read-models.db'),
  },
];

/** Everything the read models answer equals the reference fold of the same prefix. */
async function expectReadModelsToMatch(handle: MemoryHandle, log: readonly Sequenced[]) {
  for (let n = -1; n < log.length; n++) {
    const reference = replay(log.slice(0, n + 1));
    expect(await handle.state({ upToSeq: n })).toEqual(reference);
    const chunks = [];
    for await (const chunk of handle.streamState({ upToSeq: n })) chunks.push(chunk);
    expect(chunks[0]).toMatchObject({ part: 'head', lastSeq: reference.lastSeq });
    expect(chunks.filter((c) => c.part === 'content').flatMap((c) => c.items)).toEqual(
      [...reference.messages, ...reference.documents].sort((a, b) => a.seq - b.seq),
    );
    expect(await handle.statePage({ upToSeq: n, limit: 1000 })).toEqual(
      pageOfState(reference, { limit: 1000 }),
    );
    const visible = [...reference.visibleMessages, ...reference.visibleDocuments];
    for (const word of WORDS) {
      const hits = await handle.search(word, { asOfSeq: n, limit: 1000 });
      const expected = visible.filter((item) =>
        ((item.kind === 'message' ? item.content : item.text) ?? '').split(' ').includes(word),
      );
      expect(hits.map((h) => h.id).sort()).toEqual(expected.map((i) => i.id).sort());
    }
  }
  const now = replay(log);
  expect(await handle.recallStats()).toEqual(now.recallStats);
  for (const item of log.filter(isContent)) {
    const history = await handle.history(item.id);
    const recalls = log.filter((e) => e.kind === 'recall' && e.recalled.includes(item.id));
    expect(history.recalls.map((r) => r.seq)).toEqual(recalls.map((r) => r.seq));
    expect(history.deletedBy).toEqual(now.deleted[item.id] ?? null);
  }
}

describe.each(kinds)('read models on $name', (kind) => {
  it('equal replay() of every prefix, after a restart behind the log and after a rebuild (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        opsArbitrary(24),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (ops, cut) => {
          const memoryId = `m${run++}`;
          const events = buildLog(ops);
          const log = sequenced(events);
          const split = Math.floor(cut * events.length);
          // First life: part of the log, read models caught up and closed.
          const first = kind.connect();
          if (split > 0) await first.log(memoryId).append(events.slice(0, split));
          const ml1 = openMemledger({
            store: first,
            readModels: kind.readModels(),
            closeStore: false,
          });
          await (await ml1.memory(memoryId)).catchUp();
          await ml1.close();
          if (kind.name !== 'in-memory') await first.close();
          // The rest is appended by a writer with no read models: they are behind on restart.
          const writer = kind.connect();
          if (split < events.length) await writer.log(memoryId).append(events.slice(split));
          if (kind.name !== 'in-memory') await writer.close();
          const store = kind.connect();
          const ml2 = openMemledger({ store, readModels: kind.readModels(), closeStore: false });
          try {
            const handle = await ml2.memory(memoryId);
            await expectReadModelsToMatch(handle, log);
            await handle.rebuild();
            await expectReadModelsToMatch(handle, log);
          } finally {
            await ml2.close();
            if (kind.name !== 'in-memory') await store.close();
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
