import fc from 'fast-check';
import { replay } from '../../src/core/index.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';
import { readAll, rejectionOf } from '../support/collect.js';
import { deletionOf, message, recallOf } from '../support/events.js';
import type { ContractContext } from './index.js';
import { itNotApplicable } from './harness.js';

/** Invariant 4 over what the store returns, a property test, and racing store instances. */
export function describeReplayContract(ctx: ContractContext): void {
  describe('replaying what the store holds', () => {
    it('invariant 4 — replaying the stored log is a pure fold: equal events give an equal state', async () => {
      const log = ctx.store().log();
      const m = message();
      await log.append([m, recallOf([m.id]), deletionOf([m.id])]);
      const first = replay(await readAll(log));
      const second = replay(await readAll(log));
      expect(second).toEqual(first);
      expect(first.lastSeq).toBe(2);
      expect(first.recallStats[m.id]).toMatchObject({ count: 1, lastRecalledSeq: 1 });
    });

    it('invariant 4 — replay of stored events out of order or with a gap throws REPLAY_ORDER', async () => {
      const log = ctx.store().log();
      await log.append([message('a'), message('b'), message('c')]);
      const events = await readAll(log);
      expect(() => replay([events[1]!, events[0]!])).toThrow(
        expect.objectContaining({ code: 'REPLAY_ORDER' }) as Error,
      );
      expect(() => replay([events[0]!, events[2]!])).toThrow(
        expect.objectContaining({ code: 'REPLAY_ORDER' }) as Error,
      );
    });

    it('stores any random valid log exactly, in random batches (property, 25 runs)', async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(opsArbitrary(30), fc.integer({ min: 1, max: 5 }), async (ops, batch) => {
          const events = buildLog(ops);
          const log = ctx.store().log(`prop-${round++}`);
          for (let i = 0; i < events.length; i += batch)
            await log.append(events.slice(i, i + batch));
          const stored = await readAll(log);
          expect(stored).toEqual(sequenced(events));
          expect(replay(stored)).toEqual(replay(sequenced(events)));
        }),
        { numRuns: 25 },
      );
    });

    if (ctx.harness.openPeer) {
      it('invariant 8 — two store instances racing deletions and recalls keep seq gapless and no recall of deleted content', async () => {
        const peer = await ctx.harness.openPeer!(ctx.store());
        try {
          const mine = ctx.store().log();
          const theirs = peer.log();
          const items = Array.from({ length: 10 }, (_, i) => message(`shared ${i}`));
          await mine.append(items);
          await Promise.all(
            items.flatMap((item, i) => [
              (i % 2 ? mine : theirs).append([recallOf([item.id])]).catch(() => undefined),
              (i % 2 ? theirs : mine).append([deletionOf([item.id])]).catch(() => undefined),
              (i % 2 ? mine : theirs).append([recallOf([item.id])]).catch(() => undefined),
            ]),
          );
          const events = await readAll(mine);
          expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
          expect(Object.keys(replay(events).deleted)).toHaveLength(items.length);
          const late = await rejectionOf(theirs.append([recallOf([items[0]!.id])]));
          expect(late.code).toBe('RECALL_TARGET_DELETED');
        } finally {
          await peer.close();
        }
      });
    } else {
      itNotApplicable(
        'invariant 8 — two store instances racing',
        'one process holds the only instance',
      );
    }
  });
}
