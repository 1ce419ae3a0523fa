import { openMemledger } from '../../src/memory/index.js';
import { storeKinds } from '../memory/stores.js';

/**
 * DESIGN.md: events are deeply frozen at runtime. State pages decode events from the read
 * models without validating them again (the SQLite store's page rows, or the read-model file's
 * payload copies on any other store); they must come back frozen all the same.
 */
describe.each(storeKinds().map((kind) => [kind.name, kind] as const))(
  'events on a state page (%s)',
  (_name, kind) => {
    afterEach(() => kind.cleanup());

    it('are deeply frozen, now and as of a seq', async () => {
      const memledger = openMemledger({ store: kind.open() });
      try {
        const memory = await memledger.memory();
        const kept = await memory.recordMessage({ speaker: 'user', content: 'kept' });
        const gone = await memory.recordMessage({ speaker: 'user', content: 'gone' });
        await memory.addDocument({ name: 'notes.md', text: 'some notes' });
        await memory.deleteContent({ targets: [gone.id], reason: 'asked to forget' });
        for (const asOf of [{}, { upToSeq: 3 }]) {
          const page = await memory.statePage(asOf);
          const events = [
            ...page.visibleMessages,
            ...page.visibleDocuments,
            ...Object.values(page.deleted),
          ];
          expect(events.map((e) => e.kind).sort()).toEqual(['deletion', 'document', 'message']);
          expect(page.visibleMessages.map((e) => e.id)).toEqual([kept.id]);
          for (const event of events) {
            expect(Object.isFrozen(event)).toBe(true);
            expect(() => Object.assign(event, { seq: -1 })).toThrow(TypeError);
          }
          const deletion = page.deleted[gone.id]!;
          expect(deletion.targets).toEqual([gone.id]);
          expect(Object.isFrozen(deletion.targets)).toBe(true);
        }
      } finally {
        await memledger.close();
      }
    });
  },
);
