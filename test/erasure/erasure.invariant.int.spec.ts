/**
 * Invariant 7 (DESIGN.md) on every store with keys: a Deletion hides, an Erasure of deleted
 * content destroys its words while the item, its seq, times and both acts stay on record, in
 * every state (as of any seq, before the erasure too); and each refused erasure writes nothing.
 */
import { createMessage, type ContentEvent, type Sequenced } from '../../src/core/index.js';
import { openMemledger } from '../../src/memory/index.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { rejectionOf, readAll } from '../support/collect.js';
import {
  canary,
  erasureStoreKinds,
  openWithPlainContent,
  type ErasureEnv,
} from '../support/erasure-stores.js';

const kinds = erasureStoreKinds();
const open: ErasureEnv[] = [];
afterEach(async () => {
  for (const env of open.splice(0)) await env.close();
});

/** Erased content as every read must show it. */
const messageMarker = (written: Sequenced<ContentEvent>) => ({
  id: written.id,
  kind: 'message',
  seq: written.seq,
  timestamp: written.timestamp,
  content: null,
  erased: true,
});

for (const kind of kinds) {
  describe(`erasure on ${kind.name}`, () => {
    const fresh = async () => {
      const env = await kind.open();
      open.push(env);
      return env;
    };

    /** A memory with a message and a document holding canaries, recalled, deleted and erased. */
    async function erasedItems(env: ErasureEnv) {
      const { memory } = env;
      const words = { message: canary(), name: canary(), text: canary(), kept: canary() };
      const m = await memory.recordMessage({
        speaker: 'user',
        content: `my ${words.message} here`,
      });
      const d = await memory.addDocument({ name: `${words.name}.md`, text: `the ${words.text}` });
      const kept = await memory.recordMessage({ speaker: 'user', content: `kept ${words.kept}` });
      const recall = await memory.recall({ query: `${words.message} ${words.text}` });
      const deletion = await memory.deleteContent({
        targets: [m.id, d.id],
        reason: 'asked to forget',
        requestedBy: 'user-7',
      });
      const { erasure, cleanup } = await memory.eraseContent({
        targets: [m.id, d.id],
        reason: 'GDPR art. 17 request',
        requestedBy: 'dpo',
      });
      return { m, d, kept, recall, deletion, erasure, cleanup, words };
    }

    it('invariant 7: an erased item stays on record, its words are gone', async () => {
      const env = await fresh();
      const { m, d, kept, recall, deletion, erasure, cleanup, words } = await erasedItems(env);
      const { memory } = env;
      expect(recall.items.map((i) => i.id).sort()).toEqual([m.id, d.id].sort());
      expect(erasure.seq).toBe(deletion.seq + 1);
      // With no reader holding an older snapshot, every file is scrubbed before the answer.
      expect(cleanup).toEqual({ state: 'done' });
      expect(memory.erasureCleanup()).toEqual({ state: 'done' });

      // In every state, now and as of every seq from the write on, before the erasure too.
      for (let n = m.seq; n <= erasure.seq; n++) {
        const state = await memory.state({ upToSeq: n });
        expect(state.messages[0]).toMatchObject(messageMarker(m));
        expect(state.messages[0]).toMatchObject({ speaker: 'user' });
        if (n >= d.seq) {
          expect(state.documents[0]).toMatchObject({
            id: d.id,
            name: null,
            text: null,
            erased: true,
          });
          expect(state.documents[0]).not.toHaveProperty('sha256');
        }
        if (n >= kept.seq)
          expect(state.messages[1]).toMatchObject({ content: `kept ${words.kept}` });
        // Erased since the erasure's seq, and only from then on.
        expect(Object.keys(state.erased)).toEqual(n >= erasure.seq ? [m.id, d.id] : []);
        const page = await memory.statePage({ upToSeq: n, limit: 100 });
        expect(JSON.stringify(page)).not.toContain(words.message);
        if (n < deletion.seq) expect(page.visibleMessages[0]).toMatchObject(messageMarker(m));
      }
      const now = await memory.state();
      expect(now.erased[m.id]).toMatchObject({ id: erasure.id, reason: 'GDPR art. 17 request' });
      expect(now.deleted[m.id]).toMatchObject({ id: deletion.id, requestedBy: 'user-7' });
      expect(now.visibleMessages.map((v) => v.id)).toEqual([kept.id]);

      // get and history name both acts; the event is the marker.
      for (const lookup of [await memory.getEvent(m.id), await memory.history(m.id)]) {
        expect(lookup.event).toMatchObject(messageMarker(m));
        expect(lookup.deletedBy).toMatchObject({ id: deletion.id, kind: 'deletion' });
        expect(lookup.erasedBy).toMatchObject({
          id: erasure.id,
          kind: 'erasure',
          requestedBy: 'dpo',
        });
      }
      expect((await memory.history(d.id)).recalls.map((r) => r.recallId)).toEqual([
        recall.recall.id,
      ]);
      expect((await memory.getEvent(kept.id)).erasedBy).toBeNull();

      // The log keeps every act; the store's get and read show the marker.
      const events = await readAll(env.log);
      expect(events.map((e) => e.kind)).toEqual([
        'message',
        'document',
        'message',
        'recall',
        'deletion',
        'erasure',
      ]);
      expect(events[0]).toMatchObject(messageMarker(m));
      expect(await env.log.get(d.id)).toMatchObject({ erased: true, text: null });
      for (const word of [words.message, words.name, words.text]) {
        expect(await memory.search(word)).toEqual([]);
        for (let n = m.seq; n <= erasure.seq; n++)
          expect(await memory.search(word, { asOfSeq: n })).toEqual([]);
      }
      expect((await memory.search(words.kept)).map((h) => h.id)).toEqual([kept.id]);
      // The key store holds a tombstone, no key.
      expect([...env.keys.lookup(env.memoryId, [m.id, d.id, kept.id]).values()]).toEqual([
        'erased',
        'erased',
        expect.any(Buffer),
      ]);
    });

    it('invariant 7: deleteAndErase appends the Deletion and the Erasure together', async () => {
      const env = await fresh();
      const { memory } = env;
      const m = await memory.recordMessage({ speaker: 'user', content: `say ${canary()}` });
      const { deletion, erasure } = await memory.deleteAndErase({
        targets: [m.id],
        reason: 'forget me',
        requestedBy: 'user',
      });
      expect([deletion.seq, erasure.seq]).toEqual([m.seq + 1, m.seq + 2]);
      expect(erasure).toMatchObject({ targets: [m.id], reason: 'forget me', requestedBy: 'user' });
      expect((await memory.getEvent(m.id)).event).toMatchObject(messageMarker(m));
      expect(env.keys.pendingErasures()).toEqual([]);

      // Atomic: a refused request writes neither act.
      const head = await env.log.lastSeq();
      const again = await rejectionOf(memory.deleteAndErase({ targets: [m.id], reason: 'x' }));
      expect(again.code).toBe('ALREADY_ERASED');
      expect(await env.log.lastSeq()).toBe(head);
      const other = await memory.recordMessage({ speaker: 'user', content: 'visible' });
      const mixed = await rejectionOf(
        memory.deleteAndErase({ targets: [other.id, deletion.id], reason: 'x' }),
      );
      // The sealed store checks the erasure's targets first, so either act may name the refusal.
      expect(mixed.code).toMatch(/^(DELETION|ERASURE)_TARGET_NOT_CONTENT$/);
      expect(await env.log.lastSeq()).toBe(other.seq);
      expect((await memory.getEvent(other.id)).deleted).toBe(false);
      expect(env.keys.lookup(env.memoryId, [other.id]).get(other.id)).toBeInstanceOf(Buffer);
    });

    it('invariant 7: refuses a second erasure, visible content, non-content and unknown ids, writing nothing', async () => {
      const env = await fresh();
      const { m, recall, deletion, erasure } = await erasedItems(env);
      const { memory } = env;
      const visible = await memory.recordMessage({ speaker: 'user', content: 'still here' });
      const head = await env.log.lastSeq();
      const cases: [string[], string][] = [
        [[m.id], 'ALREADY_ERASED'],
        [[visible.id], 'ERASURE_TARGET_NOT_DELETED'],
        [[recall.recall.id], 'ERASURE_TARGET_NOT_CONTENT'],
        [[deletion.id], 'ERASURE_TARGET_NOT_CONTENT'],
        [[erasure.id], 'ERASURE_TARGET_NOT_CONTENT'],
        [['0193ffff-0000-7000-8000-000000000000'], 'ERASURE_TARGET_UNKNOWN'],
      ];
      for (const [targets, code] of cases) {
        const error = await rejectionOf(memory.eraseContent({ targets, reason: 'again' }));
        expect({ targets, code: error.code }).toEqual({ targets, code });
        expect(error.message).toContain(targets[0]);
        expect(await env.log.lastSeq()).toBe(head);
        expect(env.keys.pendingErasures()).toEqual([]);
      }
      expect(env.keys.lookup(env.memoryId, [visible.id]).get(visible.id)).toBeInstanceOf(Buffer);
      // The refusals left the memory as it was.
      expect((await memory.state()).visibleMessages.map((v) => v.id)).toContain(visible.id);
    });

    it('invariant 7: refuses to erase an item written in plain text before keys were on (ERASURE_UNAVAILABLE)', async () => {
      const plain = createMessage({ speaker: 'user', content: 'written before keys' });
      const plain2 = createMessage({ speaker: 'user', content: 'also before keys' });
      const env = await openWithPlainContent(kind, async (log) => {
        await log.append([plain, plain2]);
      });
      open.push(env);
      const { memory } = env;
      expect((await memory.getEvent(plain.id)).event).toMatchObject({
        content: 'written before keys',
      });
      const deletion = await memory.deleteContent({ targets: [plain.id], reason: 'forget' });
      expect(await env.log.lastSeq()).toBe(deletion.seq);
      const error = await rejectionOf(memory.eraseContent({ targets: [plain.id], reason: 'x' }));
      expect(error.code).toBe('ERASURE_UNAVAILABLE');
      expect(error.message).toContain(plain.id);
      // Delete-and-erase of plain text is refused whole: not even the deletion is written.
      const both = await rejectionOf(memory.deleteAndErase({ targets: [plain2.id], reason: 'x' }));
      expect(both.code).toBe('ERASURE_UNAVAILABLE');
      expect(await env.log.lastSeq()).toBe(deletion.seq);
      expect((await memory.getEvent(plain2.id)).deleted).toBe(false);
      expect(env.keys.pendingErasures()).toEqual([]);
      // Deleted, still readable by get (a tombstone, not an erasure).
      expect(await memory.getEvent(plain.id)).toMatchObject({
        deleted: true,
        erasedBy: null,
        event: { content: 'written before keys' },
      });
      // Content written since keys are on erases as usual beside it.
      const sealed = await memory.recordMessage({ speaker: 'user', content: 'sealed' });
      await memory.deleteAndErase({ targets: [sealed.id], reason: 'x' });
      expect((await memory.getEvent(sealed.id)).event).toMatchObject({ erased: true });
    });

    if (kind.durable) {
      it('invariant 7: an erasure survives reopening: the marker, both acts and the tombstoned key', async () => {
        const env = await kind.open();
        const { m, deletion, erasure, words } = await erasedItems(env);
        const again = await kind.reopen(env);
        open.push(again);
        const lookup = await again.memory.getEvent(m.id);
        expect(lookup).toMatchObject({
          event: messageMarker(m),
          deletedBy: { id: deletion.id },
          erasedBy: { id: erasure.id },
        });
        expect(await again.memory.search(words.message)).toEqual([]);
        expect(await again.memory.rebuild()).toBe(erasure.seq);
        expect(JSON.stringify(await again.memory.state())).not.toContain(words.message);
        expect(
          (await rejectionOf(again.memory.eraseContent({ targets: [m.id], reason: 'x' }))).code,
        ).toBe('ALREADY_ERASED');
      });
    }
  });
}

describe('erasure on a store without keys', () => {
  it('invariant 7: is refused with ERASURE_UNAVAILABLE and writes nothing (the deletion stays possible)', async () => {
    const memledger = openMemledger({ store: openInMemoryStore() });
    try {
      const memory = await memledger.memory();
      const m = await memory.recordMessage({ speaker: 'user', content: 'plain words' });
      const deletion = await memory.deleteContent({ targets: [m.id], reason: 'forget' });
      const error = await rejectionOf(memory.eraseContent({ targets: [m.id], reason: 'x' }));
      expect(error.code).toBe('ERASURE_UNAVAILABLE');
      expect(error.message).toMatch(/\S/);
      const other = await memory.recordMessage({ speaker: 'user', content: 'more' });
      const both = await rejectionOf(memory.deleteAndErase({ targets: [other.id], reason: 'x' }));
      expect(both.code).toBe('ERASURE_UNAVAILABLE');
      expect((await memory.state()).lastSeq).toBe(other.seq);
      expect((await memory.getEvent(other.id)).deleted).toBe(false);
      expect((await memory.getEvent(m.id)).deletedBy?.id).toBe(deletion.id);
    } finally {
      await memledger.close();
    }
  });
});
