/**
 * Two MemoryModule instances (two applications) on one store: interleaved recalls and
 * deletions keep invariant 8 and a gapless log, and each instance sees the other's events.
 */
import { replay, type Sequenced } from '../../src/core/index.js';
import type { RecallResult } from '../../src/memory/index.js';
import {
  DeleteContentCommand,
  GetMemoryStateQuery,
  MemoryEvents,
  ReadEventsQuery,
  RecallCommand,
  RecordMessageCommand,
  type MemoryEventApplied,
} from '../../src/nest.js';
import { eventually, nestStoreKinds, startMemoryApp, type MemoryApp } from './nest-stores.js';

const kinds = nestStoreKinds();

describe.each(kinds)('two MemoryModule instances on one $name store', (kind) => {
  let a: MemoryApp;
  let b: MemoryApp;
  beforeEach(async () => {
    await kind.setup();
    a = await startMemoryApp({ store: kind.config() });
    b = await startMemoryApp({ store: kind.config() });
  });
  afterEach(async () => {
    await a.moduleRef.close();
    await b.moduleRef.close();
    await kind.cleanup();
  });

  it('interleaves recalls and deletions: no recall returns content deleted at a lower seq, and seq stays gapless', async () => {
    const items: Sequenced[] = [];
    for (let i = 0; i < 10; i++) {
      const app = i % 2 === 0 ? a : b;
      items.push(
        await app.commands.execute(
          new RecordMessageCommand(undefined, {
            speaker: 'u',
            content: `fact ${i} about the deploy key`,
          }),
        ),
      );
    }
    const recall = (app: MemoryApp) =>
      app.commands.execute(new RecallCommand(undefined, { query: 'deploy key', limit: 10 }));
    // Rounds of three concurrent commands across the two instances. (A burst of a dozen
    // concurrent recalls on one memory can exhaust the facade's 10 retries: APPEND_CONFLICT.)
    const results: unknown[] = [];
    for (const [i, item] of items.entries()) {
      const [mine, theirs] = i % 2 === 0 ? [a, b] : [b, a];
      results.push(
        ...(await Promise.all([
          recall(mine),
          theirs.commands.execute(
            new DeleteContentCommand(undefined, { targets: [item.id], reason: 'race' }),
          ),
          recall(theirs),
        ])),
      );
    }

    const log = await a.queries.execute(new ReadEventsQuery(undefined, { limit: 1000 }));
    expect(log.map((e) => e.seq)).toEqual(log.map((_, index) => index));
    expect(await b.queries.execute(new ReadEventsQuery(undefined, { limit: 1000 }))).toEqual(log);
    expect(log).toHaveLength(10 + 3 * 10);

    const deletedAt = new Map(
      log.flatMap((e) => (e.kind === 'deletion' ? e.targets.map((t) => [t, e.seq] as const) : [])),
    );
    const recalls = results.filter(
      (r): r is RecallResult => typeof r === 'object' && r !== null && 'recall' in r,
    );
    expect(recalls).toHaveLength(20);
    for (const { recall: event, items: returned } of recalls) {
      expect(log[event.seq]).toEqual(event);
      expect(returned.map((item) => item.id)).toEqual(event.recalled);
      for (const item of returned)
        expect(deletedAt.get(item.id) ?? Infinity).toBeGreaterThan(event.seq);
    }
    for (const event of log)
      if (event.kind === 'recall')
        for (const id of event.recalled)
          expect(deletedAt.get(id) ?? Infinity).toBeGreaterThan(event.seq);

    const expected = replay(log);
    for (const app of [a, b]) {
      const page = await app.queries.execute(new GetMemoryStateQuery(undefined, { limit: 1000 }));
      expect(page.visibleMessages).toEqual(expected.visibleMessages);
      expect(page.deleted).toEqual(expected.deleted);
    }
  });

  it("publishes the other instance's appends to this instance's MemoryEvents.applied$", async () => {
    await a.queries.execute(new ReadEventsQuery(undefined)); // starts a's read models of `default`
    const seen: MemoryEventApplied[] = [];
    const subscription = a.moduleRef.get(MemoryEvents).applied$.subscribe((e) => seen.push(e));
    const written = await b.commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'b', content: 'from the other instance' }),
    );
    await eventually(() => seen.length > 0);
    subscription.unsubscribe();
    expect(seen).toEqual([expect.objectContaining({ memoryId: 'default', event: written })]);
  });
});
