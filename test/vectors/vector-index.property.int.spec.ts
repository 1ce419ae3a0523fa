/**
 * The vector projection is exact as of every seq: a semantic search as of n returns the
 * brute-force top k (cosine, the hashing test embedder's vectors) over the content `replay()` of
 * the first n + 1 events shows as visible — never a deleted item, never one written later — on
 * the SQLite store (vectors in its own file) and on the in-memory store (a read-model file of
 * their own); after a restart that finds the vectors behind the log, and after a rebuild, which
 * embeds nothing again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { replay, type ContentEvent, type Sequenced } from '../../src/core/index.js';
import { openMemledger, type MemoryHandle } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { itemText } from '../../src/vectors/index.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';
import { hashingEmbedder, hashingVector } from '../support/hashing-embedder.js';

const DIMENSIONS = 32;
const QUERIES = ['alpha beta', 'deploy key', 'secret runbook gamma', 'delta'];

interface Kind {
  readonly name: string;
  connect(): MemoryStore;
  readonly readModels: () => string;
}

let dir = '';
let memory: MemoryStore | undefined;
let run = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-property-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kinds: Kind[] = [
  {
    name: 'SQLite (vectors in the store file)',
    connect: () => openSqliteStore({ path: join(dir, 'log.db') }),
    readModels: () => ':memory:',
  },
  {
    name: 'in-memory (vectors in a read-model file)',
    connect: () => (memory ??= openInMemoryStore()),
    readModels: () => join(dir, 'in-memory.read-models.db'),
  },
];

/** Cosine top k over the content visible right after `n`, by brute force. */
function bruteForce(log: readonly Sequenced[], n: number, query: string, k: number) {
  const state = replay(log.slice(0, n + 1));
  const q = hashingVector(query, DIMENSIONS);
  const items: ContentEvent[] = [...state.visibleMessages, ...state.visibleDocuments];
  return items
    .map((item) => {
      const v = hashingVector(itemText(item), DIMENSIONS);
      return { id: item.id, score: v.reduce((sum, x, i) => sum + x * q[i]!, 0) };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

/** The search equals the brute force up to the order of equal scores. */
async function expectExactAsOfEverySeq(handle: MemoryHandle, log: readonly Sequenced[]) {
  for (let n = -1; n < log.length; n++) {
    for (const query of QUERIES) {
      for (const k of [3, 1000]) {
        const expected = bruteForce(log, n, query, k);
        const hits = await handle.search(query, { mode: 'semantic', asOfSeq: n, limit: k });
        expect(hits.map((h) => h.score)).toEqual(
          expected.map((e) => expect.closeTo(e.score, 5) as unknown as number),
        );
        const floor = (expected.at(-1)?.score ?? 0) - 1e-5;
        const allowed = new Set(
          bruteForce(log, n, query, 1000)
            .filter((e) => e.score >= floor)
            .map((e) => e.id),
        );
        for (const hit of hits) expect(allowed.has(hit.id)).toBe(true);
        expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
      }
    }
  }
}

// Binary: the candidates (at least a hundred) cover these small memories, so it is exact too.
describe.each(
  kinds.flatMap((kind) =>
    (['none', 'binary'] as const).map((quantization) => ({ ...kind, quantization })),
  ),
)('vector index on $name, quantization $quantization', (kind) => {
  it('returns the brute-force top k of the content visible at every seq, behind the log and after a rebuild (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        opsArbitrary(20),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (ops, cut) => {
          const memoryId = `m${run++}`;
          const events = buildLog(ops);
          const log = sequenced(events);
          const split = Math.floor(cut * events.length);
          const itemTexts: string[] = [];
          const embedder = hashingEmbedder({
            dimensions: DIMENSIONS,
            onEmbed: (texts) =>
              itemTexts.push(
                ...texts.filter((t) => t.startsWith('user: ') || t.startsWith('doc\n')),
              ),
          });
          const embeddings = { embedder, follow: false, quantization: kind.quantization };
          // First life: part of the log, vectors caught up, closed.
          const first = kind.connect();
          if (split > 0) await first.log(memoryId).append(events.slice(0, split));
          const ml1 = openMemledger({
            store: first,
            readModels: kind.readModels(),
            closeStore: false,
            embeddings,
          });
          await (await ml1.memory(memoryId)).search('alpha', { mode: 'semantic' });
          await ml1.close();
          if (kind.name.startsWith('SQLite')) await first.close();
          // The rest is appended with no vectors attached: they are behind on restart.
          const writer = kind.connect();
          if (split < events.length) await writer.log(memoryId).append(events.slice(split));
          if (kind.name.startsWith('SQLite')) await writer.close();
          const store = kind.connect();
          const ml2 = openMemledger({
            store,
            readModels: kind.readModels(),
            closeStore: false,
            embeddings,
          });
          try {
            const handle = await ml2.memory(memoryId);
            await expectExactAsOfEverySeq(handle, log);
            const embedded = itemTexts.length;
            expect(new Set(itemTexts).size).toBe(embedded);
            await handle.rebuild();
            await expectExactAsOfEverySeq(handle, log);
            expect(itemTexts).toHaveLength(embedded);
          } finally {
            await ml2.close();
            if (kind.name.startsWith('SQLite')) await store.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 180_000);
});
