import { replay } from '../../src/core/index.js';
import { readAll, rejectionOf } from '../support/collect.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import type { ContractContext } from './index.js';

/** Invariants 5, 6, 7 and 8. */
export function describeDeletionAndRecallContract(ctx: ContractContext): void {
  describe('deletion and recall', () => {
    const unknownId = '0193a4c2-0000-7000-8000-0000000000ff';

    it('invariant 5 — rejects a deletion whose target does not exist in the memory', async () => {
      const log = ctx.store().log();
      await log.append([message()]);
      const error = await rejectionOf(log.append([deletionOf([unknownId])]));
      expect(error.code).toBe('DELETION_TARGET_UNKNOWN');
      expect(error.message).toBe(`Deletion target ${unknownId} does not exist in memory default.`);
      expect(await log.lastSeq()).toBe(0);
    });

    it('invariant 5 — rejects a deletion whose target lives in another memory', async () => {
      const other = ctx.store().log('other');
      const m = message('elsewhere');
      await other.append([m]);
      const error = await rejectionOf(
        ctx
          .store()
          .log()
          .append([deletionOf([m.id])]),
      );
      expect(error.code).toBe('DELETION_TARGET_UNKNOWN');
      expect(await ctx.store().log().lastSeq()).toBeNull();
    });

    it('invariant 5 — rejects a deletion whose target is a recall or a deletion', async () => {
      const log = ctx.store().log();
      const m = message();
      const r = recallOf([m.id]);
      const d = deletionOf([m.id]);
      await log.append([m, r, d]);
      const ofRecall = await rejectionOf(log.append([deletionOf([r.id])]));
      expect(ofRecall.code).toBe('DELETION_TARGET_NOT_CONTENT');
      expect(ofRecall.message).toBe(
        `Deletion target ${r.id} is a recall, not a message or document.`,
      );
      const ofDeletion = await rejectionOf(log.append([deletionOf([d.id])]));
      expect(ofDeletion.code).toBe('DELETION_TARGET_NOT_CONTENT');
      expect(await log.lastSeq()).toBe(2);
    });

    it('invariant 5 — rejects deleting content that is already deleted, naming the first deletion', async () => {
      const log = ctx.store().log();
      const m = message();
      const first = deletionOf([m.id]);
      await log.append([m, first]);
      const error = await rejectionOf(log.append([deletionOf([m.id])]));
      expect(error.code).toBe('ALREADY_DELETED');
      expect(error.message).toContain(first.id);
    });

    it('invariant 6 — deleted content is excluded from the visible lists of the replayed state', async () => {
      const log = ctx.store().log();
      const m = message('secret');
      const keep = message('public');
      const d = doc('secret doc');
      await log.append([m, keep, d, deletionOf([m.id, d.id])]);
      const state = replay(await readAll(log));
      expect(state.visibleMessages.map((e) => e.id)).toEqual([keep.id]);
      expect(state.visibleDocuments).toEqual([]);
      expect(Object.keys(state.deleted).sort()).toEqual([m.id, d.id].sort());
    });

    it('invariant 6 — a recall naming deleted content is rejected, so it cannot re-enter a context', async () => {
      const log = ctx.store().log();
      const m = message('secret');
      const del = deletionOf([m.id]);
      await log.append([m, del]);
      const error = await rejectionOf(log.append([recallOf([m.id])]));
      expect(error.code).toBe('RECALL_TARGET_DELETED');
      expect(error.message).toContain(del.id);
    });

    it('invariant 7 — tombstoned events stay in the log and get(id) still returns them', async () => {
      const log = ctx.store().log();
      const m = message('remember the tombstone');
      await log.append([m, deletionOf([m.id])]);
      expect(await log.get(m.id)).toEqual({ ...m, seq: 0 });
      expect((await readAll(log)).map((e) => e.kind)).toEqual(['message', 'deletion']);
    });

    it('invariant 8 — a recorded recall is rejected if any id is unknown, not content, or deleted', async () => {
      const log = ctx.store().log();
      const m = message();
      const gone = message('gone');
      const r = recallOf([m.id]);
      await log.append([m, gone, r, deletionOf([gone.id])]);
      expect((await rejectionOf(log.append([recallOf([m.id, unknownId])]))).code).toBe(
        'RECALL_TARGET_UNKNOWN',
      );
      expect((await rejectionOf(log.append([recallOf([r.id])]))).code).toBe(
        'RECALL_TARGET_NOT_CONTENT',
      );
      expect((await rejectionOf(log.append([recallOf([m.id, gone.id])]))).code).toBe(
        'RECALL_TARGET_DELETED',
      );
      expect(await log.lastSeq()).toBe(3);
    });

    it('invariant 8 — a recall computed at seq r is refused with EXPECTED_SEQ_MISMATCH once a deletion moved the log', async () => {
      const log = ctx.store().log();
      const m = message();
      await log.append([m]);
      const r = await log.lastSeq();
      await log.append([deletionOf([m.id])]);
      const error = await rejectionOf(log.append([recallOf([m.id])], { expectedLastSeq: r }));
      expect(error.code).toBe('EXPECTED_SEQ_MISMATCH');
    });

    it('invariant 8 — deletions racing recalls never leave a recall of content deleted at a lower seq', async () => {
      const log = ctx.store().log();
      const items = Array.from({ length: 12 }, (_, i) => message(`item ${i}`));
      await log.append(items);
      const attempts = items.flatMap((item) => [
        log.append([recallOf([item.id])]).catch(() => undefined),
        log.append([deletionOf([item.id])]).catch(() => undefined),
        log.append([recallOf([item.id])]).catch(() => undefined),
      ]);
      await Promise.all(attempts);
      const events = await readAll(log);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      // replay() throws LOG_INVARIANT_VIOLATED on a recall of deleted content.
      const state = replay(events);
      expect(Object.keys(state.deleted)).toHaveLength(items.length);
    });
  });
}
