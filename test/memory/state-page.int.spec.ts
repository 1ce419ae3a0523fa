import fc from 'fast-check';
import { replay } from '../../src/core/index.js';
import { openMemledger, pageOfState } from '../../src/memory/index.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';
import { rejectionOf } from '../support/collect.js';

describe('state pages as of a seq', () => {
  it('equal the page of replay(prefix) for every seq, offset, limit and byte budget (property, 60 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        opsArbitrary(40),
        fc.nat({ max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(undefined, 300, 700, 1500),
        async (ops, offset, limit, byteBudget) => {
          const store = openInMemoryStore();
          const memledger = openMemledger({ store });
          try {
            const events = buildLog(ops);
            if (events.length > 0) await store.log().append(events);
            const memory = await memledger.memory();
            const log = sequenced(events);
            for (let n = -1; n < log.length; n++) {
              const page = { offset, limit, ...(byteBudget ? { byteBudget } : {}) };
              const fast = await memory.statePage({ upToSeq: n, ...page });
              expect(fast).toEqual(pageOfState(replay(log.slice(0, n + 1)), page));
            }
          } finally {
            await memledger.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('treats a seq past the end as now and rejects a seq below -1 or a page over the maximum', async () => {
    const memledger = openMemledger({ store: openInMemoryStore() });
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'u', content: 'one' });
    expect(await memory.statePage({ upToSeq: 99 })).toEqual(await memory.statePage());
    expect((await rejectionOf(memory.statePage({ upToSeq: -2 }))).code).toBe('VALIDATION_FAILED');
    expect((await rejectionOf(memory.statePage({ limit: 1001 }))).code).toBe('VALIDATION_FAILED');
    await memledger.close();
  });

  it('stop a list at the byte budget and say where it continues, always returning one item', async () => {
    const memledger = openMemledger({ store: openInMemoryStore() });
    const memory = await memledger.memory();
    const docs = [];
    for (let i = 0; i < 3; i++)
      docs.push(await memory.addDocument({ name: `d${i}`, text: 'x'.repeat(1000) }));
    const first = await memory.statePage({ byteBudget: 3000 });
    expect(first.visibleDocuments).toEqual(docs.slice(0, 2));
    expect(first.page.next).toEqual({ visibleMessages: null, visibleDocuments: 2, deleted: null });
    const rest = await memory.statePage({ byteBudget: 3000, offset: 2 });
    expect(rest.visibleDocuments).toEqual(docs.slice(2));
    expect(rest.page.next.visibleDocuments).toBeNull();
    const tiny = await memory.statePage({ byteBudget: 1 });
    expect(tiny.visibleDocuments).toEqual(docs.slice(0, 1));
    expect(tiny.page.next.visibleDocuments).toBe(1);
    await memledger.close();
  });
});
