import { isMemoryError } from '../../src/core/index.js';
import { readAll, rejectionOf } from '../support/collect.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import type { ContractContext } from './index.js';
import { itNotApplicable } from './harness.js';

/** Invariants 1, 2, 3 and 9, atomic batches and the expected-position check. */
export function describeAppendContract(ctx: ContractContext): void {
  describe('appending', () => {
    it('invariant 1 — append-only: later appends never change or remove events already in the log', async () => {
      const log = ctx.store().log();
      const m1 = message('first');
      const m2 = message('second');
      await log.append([m1, m2]);
      const before = await readAll(log);
      await log.append([deletionOf([m1.id]), recallOf([m2.id]), doc()]);
      const after = await readAll(log);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(before.length + 3);
      expect(Object.isFrozen(after[0])).toBe(true);
    });

    it('invariant 2 — the store assigns seq from 0, strictly increasing without gaps', async () => {
      const log = ctx.store().log();
      const first = await log.append([message('a')]);
      const batch = await log.append([message('b'), doc(), message('c')]);
      const last = await log.append([message('d')]);
      expect([...first, ...batch, ...last].map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
      expect((await readAll(log)).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
      expect(await log.lastSeq()).toBe(4);
    });

    it('invariant 2 — rejects an event that already has a seq (ALREADY_SEQUENCED) and writes nothing', async () => {
      const log = ctx.store().log();
      const [stored] = await log.append([message('a')]);
      const error = await rejectionOf(log.append([message('b'), { ...message('c'), seq: 7 }]));
      expect(error.code).toBe('ALREADY_SEQUENCED');
      expect(error.message).toContain('seq 7');
      expect(await readAll(log)).toEqual([stored]);
    });

    if (ctx.harness.reopen) {
      it('invariant 3 — seq survives reopening: a reopened store resumes after the highest seq', async () => {
        const m = message('kept');
        await ctx.store().log().append([m, doc()]);
        ctx.replaceStore(await ctx.harness.reopen!(ctx.store()));
        const log = ctx.store().log();
        expect(await log.lastSeq()).toBe(1);
        const [next] = await log.append([message('after reopen')]);
        expect(next!.seq).toBe(2);
        expect(await log.get(m.id)).toEqual({ ...m, seq: 0 });
      });
    } else {
      itNotApplicable(
        'invariant 3 — seq survives reopening',
        'this store keeps nothing once closed',
      );
    }

    it('invariant 9 — appending an id already stored with the same content returns the stored event and writes nothing', async () => {
      const log = ctx.store().log();
      const m = message('once');
      const [first] = await log.append([m]);
      await log.append([doc()]);
      const [again] = await log.append([m]);
      expect(again).toEqual(first);
      expect(await log.lastSeq()).toBe(1);
    });

    it('invariant 9 — the same id with different content is rejected (ID_CONFLICT)', async () => {
      const log = ctx.store().log();
      const m = message('original');
      await log.append([m]);
      const error = await rejectionOf(log.append([{ ...m, content: 'rewritten history' }]));
      expect(error.code).toBe('ID_CONFLICT');
      expect(error.message).toContain(m.id);
      expect((await readAll(log)).map((e) => e.id)).toEqual([m.id]);
    });

    it('a retried append is idempotent even when its expected position is now stale', async () => {
      const log = ctx.store().log();
      const m = message('retry me');
      const [first] = await log.append([m], { expectedLastSeq: null });
      const [retried] = await log.append([m], { expectedLastSeq: null });
      expect(retried).toEqual(first);
    });

    it('a retried batch whose first events are stored returns them as stored and appends the rest', async () => {
      const log = ctx.store().log();
      const [a, b, c] = [message('stored before'), doc(), message('not yet')];
      const [storedA] = await log.append([a]);

      const retried = await log.append([a, b, c]);

      expect(retried[0]).toEqual(storedA);
      expect(retried.map((event) => [event.id, event.seq])).toEqual([
        [a.id, 0],
        [b.id, 1],
        [c.id, 2],
      ]);
      expect((await readAll(log)).map((event) => event.id)).toEqual([a.id, b.id, c.id]);
    });

    it('invariant 9 — an id stored with different content, deep in a batch of 150, refuses the whole batch', async () => {
      const log = ctx.store().log();
      const m = message('original');
      await log.append([m]);
      const batch = Array.from({ length: 150 }, (_, i) => message(`batch ${i}`));
      batch[120] = { ...m, content: 'rewritten history' };

      const error = await rejectionOf(log.append(batch));

      expect(error.code).toBe('ID_CONFLICT');
      expect(error.message).toContain(m.id);
      expect((await readAll(log)).map((e) => e.id)).toEqual([m.id]);
    });

    it('invariant 9 — an id stored with the same content, deep in a batch of 150, is returned as stored and the rest appended', async () => {
      const log = ctx.store().log();
      const m = message('stored before');
      const [storedM] = await log.append([m]);
      const batch = Array.from({ length: 150 }, (_, i) => message(`batch ${i}`));
      batch[120] = m;

      const stored = await log.append(batch);

      expect(stored[120]).toEqual(storedM);
      expect(stored.filter((e) => e.id !== m.id).map((e) => e.seq)).toEqual(
        Array.from({ length: 149 }, (_, i) => i + 1),
      );
      expect(await log.lastSeq()).toBe(149);
    });

    it('appends several events atomically: one invalid event and none is written', async () => {
      const log = ctx.store().log();
      const m = message('would be first');
      const error = await rejectionOf(
        log.append([m, doc(), deletionOf(['0193a4c2-0000-7000-8000-000000000000'])]),
      );
      expect(error.code).toBe('DELETION_TARGET_UNKNOWN');
      expect(await log.lastSeq()).toBeNull();
      expect(await log.get(m.id)).toBeUndefined();
    });

    it('rejects a hand-built event that breaks a schema rule, naming the field, and writes nothing', async () => {
      const log = ctx.store().log();
      const error = await rejectionOf(log.append([{ ...message(), content: '   ' }]));
      expect(isMemoryError(error, 'VALIDATION_FAILED')).toBe(true);
      expect(error.message).toContain(
        'content: must contain at least one non-whitespace character',
      );
      expect(await log.lastSeq()).toBeNull();
    });

    it('checks the expected position: null means empty, a number means that last seq', async () => {
      const log = ctx.store().log();
      await log.append([message('a')], { expectedLastSeq: null });
      await log.append([message('b')], { expectedLastSeq: 0 });
      const stale = await rejectionOf(log.append([message('c')], { expectedLastSeq: 0 }));
      expect(stale.code).toBe('EXPECTED_SEQ_MISMATCH');
      const notEmpty = await rejectionOf(log.append([message('d')], { expectedLastSeq: null }));
      expect(notEmpty.code).toBe('EXPECTED_SEQ_MISMATCH');
      expect(await log.lastSeq()).toBe(1);
    });

    it('rejects an invalid memory id with INVALID_MEMORY_ID', () => {
      for (const bad of ['', 'a/b', 'x'.repeat(129), 'memory id', '../etc']) {
        let caught: unknown;
        try {
          ctx.store().log(bad);
        } catch (error) {
          caught = error;
        }
        expect(isMemoryError(caught, 'INVALID_MEMORY_ID')).toBe(true);
      }
    });
  });
}
