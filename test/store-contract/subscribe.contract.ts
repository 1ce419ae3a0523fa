import type { Sequenced } from '../../src/core/index.js';
import { take } from '../support/collect.js';
import { message } from '../support/events.js';
import type { ContractContext } from './index.js';

/** Catch-up subscriptions: history first, then live, no gap and no duplicate. */
export function describeSubscribeContract(ctx: ContractContext): void {
  describe('subscribing', () => {
    it('catches up from a seq, then delivers live appends, with no gap or duplicate at the hand-over', async () => {
      const log = ctx.store().log();
      await log.append(Array.from({ length: 5 }, (_, i) => message(`before ${i}`)));
      const controller = new AbortController();
      const received = take(log.subscribe({ fromSeq: 2, signal: controller.signal }), 3 + 6);
      // Append while the subscriber is catching up and after it went live.
      await log.append([message('live 0')]);
      await new Promise((r) => setTimeout(r, 50));
      for (let i = 1; i < 6; i++) await log.append([message(`live ${i}`)]);
      const events = await received;
      controller.abort();
      expect(events.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('delivers a multi-event append to a live subscriber in seq order', async () => {
      const log = ctx.store().log();
      const controller = new AbortController();
      const received = take(log.subscribe({ signal: controller.signal }), 4);
      await new Promise((r) => setTimeout(r, 20));
      await log.append([message('a'), message('b'), message('c'), message('d')]);
      const events = await received;
      controller.abort();
      expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    });

    it('ends the subscription when its signal aborts', async () => {
      const log = ctx.store().log();
      await log.append([message()]);
      const controller = new AbortController();
      const seen: Sequenced[] = [];
      let sawFirst!: () => void;
      const first = new Promise<void>((resolve) => (sawFirst = resolve));
      const loop = (async () => {
        for await (const event of log.subscribe({ signal: controller.signal })) {
          seen.push(event);
          sawFirst();
        }
      })();
      // Aborted once the subscription delivered (a fixed sleep lost that race on a loaded box).
      await first;
      controller.abort();
      await loop;
      expect(seen.map((e) => e.seq)).toEqual([0]);
    });

    it('never delivers another memory’s events', async () => {
      const mine = ctx.store().log('mine');
      const controller = new AbortController();
      const received = take(mine.subscribe({ signal: controller.signal }), 1);
      await ctx
        .store()
        .log('theirs')
        .append([message('not for you')]);
      const [own] = await mine.append([message('for you')]);
      const events = await received;
      controller.abort();
      expect(events).toEqual([own]);
    });
  });
}
