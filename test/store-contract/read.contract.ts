import { EVENT_VERSIONS } from '../../src/core/index.js';
import { readAll, rejectionOf } from '../support/collect.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import type { ContractContext } from './index.js';

/** Reading ranges, get by id, and isolation between memories. */
export function describeReadContract(ctx: ContractContext): void {
  describe('reading', () => {
    const fill = async (count: number) => {
      const log = ctx.store().log();
      await log.append(Array.from({ length: count }, (_, i) => message(`m${i}`)));
      return log;
    };
    const seqs = async (
      options: Parameters<ReturnType<ReturnType<ContractContext['store']>['log']>['read']>[0],
    ) => (await readAll(ctx.store().log(), options)).map((e) => e.seq);

    it('reads a range forwards with fromSeq, toSeq and limit', async () => {
      await fill(10);
      expect(await seqs({})).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(await seqs({ fromSeq: 3, toSeq: 6 })).toEqual([3, 4, 5, 6]);
      expect(await seqs({ fromSeq: 8, limit: 5 })).toEqual([8, 9]);
      expect(await seqs({ fromSeq: 2, limit: 3 })).toEqual([2, 3, 4]);
      expect(await seqs({ fromSeq: 42 })).toEqual([]);
    });

    it('reads forwards to a toSeq past the end as far as the log goes', async () => {
      expect(await seqs({ fromSeq: 0, toSeq: 5 })).toEqual([]);
      await fill(10);
      expect(await seqs({ fromSeq: 8, toSeq: 20 })).toEqual([8, 9]);
      expect(await seqs({ fromSeq: 10, toSeq: 20 })).toEqual([]);
      expect(await seqs({ fromSeq: 7, toSeq: 20, limit: 2 })).toEqual([7, 8]);
      expect(await seqs({ fromSeq: 6, toSeq: 3 })).toEqual([]);
    });

    it('reads a range backwards: fromSeq is the highest seq, toSeq the lowest', async () => {
      await fill(10);
      expect(await seqs({ direction: 'backwards' })).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(await seqs({ direction: 'backwards', fromSeq: 6, toSeq: 3 })).toEqual([6, 5, 4, 3]);
      expect(await seqs({ direction: 'backwards', limit: 2 })).toEqual([9, 8]);
      expect(await seqs({ direction: 'backwards', fromSeq: 99, limit: 1 })).toEqual([9]);
    });

    it('reads each event in the form it keeps: wire type, schema version, fields without seq, id and kind', async () => {
      const log = ctx.store().log();
      const [m, d] = await log.append([message('kept as written'), doc('a note')]);
      const [recall] = await log.append([recallOf([m!.id])]);
      const [deletion] = await log.append([deletionOf([d!.id])]);
      const projected = [];
      for await (const p of log.readProjected({ fromSeq: 1 })) projected.push(p);
      expect(projected.map((p) => p.event)).toEqual(
        (await readAll(log, { fromSeq: 1 })).map((e) => e),
      );
      expect(projected.map((p) => [p.stored.type, p.stored.version])).toEqual([
        ['Document', EVENT_VERSIONS.document],
        ['Recall', EVENT_VERSIONS.recall],
        ['Deletion', EVENT_VERSIONS.deletion],
      ]);
      for (const [i, event] of [d!, recall!, deletion!].entries()) {
        const { seq: _seq, id: _id, kind: _kind, ...fields } = event;
        expect(projected[i]!.stored.body).toEqual(JSON.parse(JSON.stringify(fields)));
      }
    });

    it('reads the same events trusted (upcast, not validated again) as validated', async () => {
      const log = ctx.store().log();
      const [m] = await log.append([message('one'), doc('two')]);
      await log.append([recallOf([m!.id]), deletionOf([m!.id])]);
      const asJson = (events: unknown) => JSON.parse(JSON.stringify(events)) as unknown;
      expect(asJson(await readAll(log, { trusted: true }))).toEqual(asJson(await readAll(log)));
      expect((await readAll(log, { trusted: true, fromSeq: 2 })).map((e) => e.kind)).toEqual([
        'recall',
        'deletion',
      ]);
      const projected = async (trusted: boolean) => {
        const out = [];
        for await (const p of log.readProjected({ trusted })) out.push(p);
        return asJson(out);
      };
      expect(await projected(true)).toEqual(await projected(false));
    });

    it('reads more than one page of events in order', async () => {
      const log = ctx.store().log();
      for (let i = 0; i < 3; i++)
        await log.append(Array.from({ length: 400 }, (_, j) => message(`bulk ${i}-${j}`)));
      const all = await readAll(log);
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
      expect((await readAll(log, { direction: 'backwards', limit: 600 })).at(-1)!.seq).toBe(600);
    });

    it('rejects a negative or fractional seq in a read', async () => {
      await fill(1);
      expect((await rejectionOf(readAll(ctx.store().log(), { fromSeq: -1 }))).code).toBe(
        'VALIDATION_FAILED',
      );
      expect((await rejectionOf(readAll(ctx.store().log(), { limit: 1.5 }))).code).toBe(
        'VALIDATION_FAILED',
      );
    });

    it('reads an empty log as no events, last seq null, any id unknown', async () => {
      const log = ctx.store().log('empty');
      expect(await readAll(log)).toEqual([]);
      expect(await log.lastSeq()).toBeNull();
      expect(await log.get('0193a4c2-0000-7000-8000-000000000001')).toBeUndefined();
      expect(await log.get('not even a uuid')).toBeUndefined();
    });

    it('gets every kind of event by id, exactly as stored', async () => {
      const log = ctx.store().log();
      const m = message();
      const d = doc('with sha', {
        sha256: 'a'.repeat(64),
        mediaType: 'text/markdown',
        retainUntil: '2027-01-01T00:00:00+02:00',
      });
      const r = recallOf([m.id, d.id]);
      const del = deletionOf([d.id]);
      const stored = await log.append([m, d, r, del]);
      for (const event of stored) expect(await log.get(event.id)).toEqual(event);
      expect(await log.get(d.id.toUpperCase())).toEqual(stored[1]);
      expect((await log.get(d.id))!).toMatchObject({ retainUntil: '2026-12-31T22:00:00.000Z' });
    });

    it('keeps two memories in one store apart: no read, get or seq crosses between them', async () => {
      const a = ctx.store().log('alice');
      const b = ctx.store().log('bob');
      const secret = message('alice only');
      await a.append([secret, message('more alice')]);
      const [bobs] = await b.append([message('bob only')]);
      expect(bobs!.seq).toBe(0);
      expect(await b.get(secret.id)).toBeUndefined();
      expect((await readAll(b)).map((e) => e.id)).toEqual([bobs!.id]);
      expect(await a.lastSeq()).toBe(1);
      expect((await rejectionOf(b.append([recallOf([secret.id])]))).code).toBe(
        'RECALL_TARGET_UNKNOWN',
      );
      expect(await ctx.store().memoryIds()).toEqual(['alice', 'bob']);
    });

    it('lets the same event id live in two memories without conflict', async () => {
      const m = message('shared id');
      const [inA] = await ctx.store().log('a').append([m]);
      const [inB] = await ctx
        .store()
        .log('b')
        .append([{ ...m, content: 'different content' }]);
      expect(inA!.seq).toBe(0);
      expect(inB!.seq).toBe(0);
    });
  });
}
