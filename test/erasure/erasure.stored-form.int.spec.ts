/**
 * What projections (and the verifiable log's leaves) see of sealed content: the stored form
 * keeps the words sealed, before and after an erasure (destroying the key changes no stored
 * byte, so no leaf), while the event beside it reads as reads return it.
 */
import type { ProjectedEvent } from '../../src/store/projection.port.js';
import { canary, erasureStoreKinds } from '../support/erasure-stores.js';

const kinds = erasureStoreKinds();

for (const kind of kinds) {
  describe(`stored form of sealed content on ${kind.name}`, () => {
    it('keeps the words sealed in the stored form, and an erasure leaves that form as it was', async () => {
      const env = await kind.open();
      try {
        const words = canary();
        const item = await env.memory.recordMessage({ speaker: 'user', content: `said ${words}` });
        const read = async () => {
          const out: ProjectedEvent[] = [];
          for await (const p of env.log.readProjected({ fromSeq: item.seq, toSeq: item.seq }))
            out.push(p);
          return out[0]!;
        };
        const before = await read();
        expect(before.event).toMatchObject({ id: item.id, content: `said ${words}` });
        expect(before.stored.body).toMatchObject({
          sealed: expect.stringMatching(/^v1\./) as string,
        });
        expect(before.stored.body).not.toHaveProperty('content');
        expect(JSON.stringify(before.stored)).not.toContain(words);

        await env.memory.deleteAndErase({ targets: [item.id], reason: 'forget' });
        const after = await read();
        expect(after.event).toMatchObject({ id: item.id, content: null, erased: true });
        expect(after.stored).toEqual(before.stored);
      } finally {
        await env.close();
      }
    });
  });
}
