/**
 * Issue 10's property: over random logs with random deletions and erasures, a canary in each
 * erased item's words is returned by no read path — state, state pages and streamed states now
 * and as of every seq, search now and as of every seq, recall, get, history, readEvents, the
 * store's read and get, a subscription replayed from seq 0 — on every store with keys, also
 * after the read models are rebuilt from the log. Live items' canaries are found by the same
 * scans, so the scans can find what is there.
 */
import { jest } from '@jest/globals';
import fc from 'fast-check';
import { isContent, type Sequenced } from '../../src/core/index.js';
import { readAll, take } from '../support/collect.js';
import {
  canaryOpsArbitrary,
  erasedCanariesIn,
  runCanaryOps,
  SHARED_WORD,
  type CanaryLog,
} from '../support/erasure-canaries.js';
import { erasureStoreKinds, type ErasureEnv } from '../support/erasure-stores.js';

const kinds = erasureStoreKinds();
/** Runs per store: EventStoreDB through the test server costs ~0.3 s a run. */
const RUNS: Record<string, number> = { 'in-memory (sealed)': 25, 'SQLite file (sealed)': 20 };

/** Every read path, now and as of every seq; fails naming the path that returned a canary. */
async function expectNoErasedCanary(env: ErasureEnv, log: CanaryLog): Promise<void> {
  const { memory } = env;
  const leaks: string[] = [];
  const check = (path: string, value: unknown) => {
    const found = erasedCanariesIn(value, log);
    if (found.length > 0) leaks.push(`${path}: ${found.join(', ')}`);
  };
  for (let n = -1; n <= log.lastSeq; n++) {
    check(`state as of ${n}`, await memory.state({ upToSeq: n }));
    check(`statePage as of ${n}`, await memory.statePage({ upToSeq: n, limit: 1000 }));
    const chunks = [];
    for await (const chunk of memory.streamState({ upToSeq: n })) chunks.push(chunk);
    check(`streamState as of ${n}`, chunks);
    check(
      `search as of ${n}`,
      await memory.search(`${SHARED_WORD} alpha`, { asOfSeq: n, limit: 100 }),
    );
    for (const word of log.erased) {
      check(`search ${word} as of ${n}`, await memory.search(word, { asOfSeq: n }));
    }
  }
  check('state now', await memory.state());
  check('statePage now', await memory.statePage({ limit: 1000 }));
  for (const word of log.erased) check(`search ${word} now`, await memory.search(word));
  check('search now', await memory.search(`${SHARED_WORD} alpha`, { limit: 100 }));
  for (const id of log.ids) {
    check(`getEvent ${id}`, await memory.getEvent(id));
    check(`history ${id}`, await memory.history(id));
    check(`log.get ${id}`, await env.log.get(id));
  }
  check('readEvents', await memory.readEvents());
  check('readEvents backwards', await memory.readEvents({ direction: 'backwards' }));
  check('log.read', await readAll(env.log));
  const controller = new AbortController();
  try {
    const replayed = await take(
      env.log.subscribe({ fromSeq: 0, signal: controller.signal }),
      log.lastSeq + 1,
    );
    expect(replayed.map((e) => e.seq)).toEqual(
      Array.from({ length: log.lastSeq + 1 }, (_, i) => i),
    );
    check('subscribe from 0', replayed);
  } finally {
    controller.abort();
  }
  // The auditable read: recall over words every item shares (a canary as query would be recorded).
  const recall = await memory.recall({ query: `${SHARED_WORD} alpha`, limit: 100 });
  check('recall', recall);
  expect(recall.items.every((item) => !('erased' in item))).toBe(true);
  expect(leaks).toEqual([]);
}

/** The same scans find a live item's canary: the check above can fail. */
async function expectLiveCanariesFound(env: ErasureEnv, log: CanaryLog): Promise<void> {
  const state = JSON.stringify(await env.memory.state());
  const events = JSON.stringify(await readAll(env.log));
  for (const [word, id] of log.live) {
    expect(state).toContain(word);
    expect(events).toContain(word);
    expect((await env.memory.search(word)).map((h) => h.id)).toEqual([id]);
  }
}

// Dozens of random logs per store, each with erasures (every one scrubs its files): on
// EventStoreDB that nears jest's default 30 s on a loaded 2-core machine.
jest.setTimeout(120_000);

for (const kind of kinds) {
  describe(`canaries on ${kind.name}`, () => {
    it('no read path returns an erased item’s words, now or as of any seq (property)', async () => {
      let erasedTotal = 0;
      await fc.assert(
        fc.asyncProperty(canaryOpsArbitrary(20), async (ops) => {
          const env = await kind.open();
          try {
            const log = await runCanaryOps(env.memory, ops);
            erasedTotal += log.erased.size;
            await expectNoErasedCanary(env, log);
            await expectLiveCanariesFound(env, log);
            // Rebuilt from the log, the read models forget the same words.
            await env.memory.rebuild();
            const state = await env.memory.state();
            expect(erasedCanariesIn(state, log)).toEqual([]);
            const erasedIds = Object.keys(state.erased);
            const items: Sequenced[] = [...state.messages, ...state.documents];
            expect(
              items
                .filter((i) => isContent(i) && 'erased' in i)
                .map((i) => i.id)
                .sort(),
            ).toEqual(erasedIds.sort());
          } finally {
            await env.close();
          }
        }),
        { numRuns: RUNS[kind.name] ?? 8 },
      );
      // The runs erased something (else the property was vacuous).
      expect(erasedTotal).toBeGreaterThan(0);
    });
  });
}
