import { firstValueFrom, take, toArray } from 'rxjs';
import { replay } from '../../src/core/index.js';
import {
  openMemledger,
  pageOfState,
  sweepExpired,
  type Memledger,
} from '../../src/memory/index.js';
import { rejectionOf } from '../support/collect.js';
import { storeKinds } from './stores.js';

describe.each(storeKinds())('memledger facade on $name', (kind) => {
  let memledger: Memledger;
  beforeEach(() => {
    memledger = openMemledger({ store: kind.open() });
  });
  afterEach(async () => {
    await memledger.close();
    kind.cleanup();
  });

  it('records messages and documents and reads them back in the current state', async () => {
    const memory = await memledger.memory();
    const m = await memory.recordMessage({
      speaker: 'user',
      content: 'The staging password rotates weekly.',
    });
    const d = await memory.addDocument({
      name: 'policy.md',
      text: 'Passwords rotate every seven days.',
    });
    const state = await memory.state();
    expect(state.visibleMessages).toEqual([m]);
    expect(state.visibleDocuments).toEqual([d]);
    expect(d.mediaType).toBe('text/plain');
  });

  it('recall returns visible matches and puts a Recall naming them on record first', async () => {
    const memory = await memledger.memory();
    const hit = await memory.recordMessage({
      speaker: 'user',
      content: 'The deploy key lives in the vault.',
    });
    await memory.recordMessage({ speaker: 'user', content: 'Lunch is at noon.' });
    const { recall, items } = await memory.recall({ query: 'deploy key', actor: 'agent-1' });
    expect(items.map((i) => i.id)).toEqual([hit.id]);
    expect(recall).toMatchObject({
      kind: 'recall',
      query: 'deploy key',
      recalled: [hit.id],
      seq: 2,
      actor: 'agent-1',
    });
    expect((await memory.recallStats())[hit.id]).toMatchObject({ count: 1, lastRecalledSeq: 2 });
  });

  it('recall never returns deleted content, and the inspection search agrees', async () => {
    const memory = await memledger.memory();
    const secret = await memory.recordMessage({
      speaker: 'user',
      content: 'My card number is 4242.',
    });
    await memory.deleteContent({ targets: [secret.id], reason: 'PII', requestedBy: 'user' });
    const { items, recall } = await memory.recall({ query: 'card number' });
    expect(items).toEqual([]);
    expect(recall.recalled).toEqual([]);
    expect(await memory.search('card number')).toEqual([]);
    expect((await memory.search('card number', { asOfSeq: 0 })).map((h) => h.id)).toEqual([
      secret.id,
    ]);
  });

  it('recalls racing deletions never return content deleted at a lower seq (invariant 8)', async () => {
    const memory = await memledger.memory();
    const items = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        memory.recordMessage({ speaker: 'user', content: `fact ${i} about the deploy key` }),
      ),
    );
    const results = await Promise.all(
      items.flatMap((item) => [
        memory.recall({ query: 'deploy key', limit: 8 }),
        memory.deleteContent({ targets: [item.id], reason: 'race' }),
      ]),
    );
    const events = await memory.readEvents();
    expect(() => replay(events)).not.toThrow();
    const deletedAt = new Map(
      events.flatMap((e) =>
        e.kind === 'deletion' ? e.targets.map((t) => [t, e.seq] as const) : [],
      ),
    );
    for (const result of results) {
      if (!('recall' in result)) continue;
      for (const item of result.items)
        expect(deletedAt.get(item.id) ?? Infinity).toBeGreaterThan(result.recall.seq);
    }
  });

  it('gets a deleted event marked as deleted, with its Deletion, and tells its whole history', async () => {
    const memory = await memledger.memory();
    const m = await memory.recordMessage({ speaker: 'user', content: 'remember the blue door' });
    const { recall } = await memory.recall({
      query: 'blue door',
      actor: 'planner',
      sessionId: 's-9',
    });
    const deletion = await memory.deleteContent({
      targets: [m.id],
      reason: 'outdated',
      requestedBy: 'alice',
    });
    expect(await memory.getEvent(m.id)).toEqual({
      event: m,
      deleted: true,
      deletedBy: deletion,
      erasedBy: null,
    });
    const history = await memory.history(m.id);
    expect(history.recalls).toEqual([
      {
        recallId: recall.id,
        query: 'blue door',
        recordedBy: null,
        seq: recall.seq,
        timestamp: recall.timestamp,
        actor: 'planner',
        sessionId: 's-9',
        retrieval: {
          method: 'lexical',
          model: null,
          dimensions: null,
          fusion: null,
          vectors: null,
        },
      },
    ]);
    expect(history.deletedBy).toMatchObject({ reason: 'outdated', requestedBy: 'alice' });
    expect((await rejectionOf(memory.getEvent('0193a4c2-0000-7000-8000-0000000000aa'))).code).toBe(
      'EVENT_NOT_FOUND',
    );
  });

  it('rebuilds the state as of any seq, equal to replay of the log prefix', async () => {
    const memory = await memledger.memory();
    const m = await memory.recordMessage({ speaker: 'user', content: 'first' });
    await memory.deleteContent({ targets: [m.id], reason: 'gone' });
    await memory.recordMessage({ speaker: 'user', content: 'second' });
    const events = await memory.readEvents();
    for (const upToSeq of [-1, 0, 1, 2]) {
      expect(await memory.state({ upToSeq })).toEqual(replay(events.slice(0, upToSeq + 1)));
    }
    expect((await memory.state({ upToSeq: 0 })).visibleMessages.map((x) => x.id)).toEqual([m.id]);
    expect((await rejectionOf(memory.state({ upToSeq: -2 }))).code).toBe('VALIDATION_FAILED');
  });

  it('pages the visible lists and reports totals', async () => {
    const memory = await memledger.memory();
    for (let i = 0; i < 5; i++) await memory.recordMessage({ speaker: 'user', content: `m${i}` });
    const page = await memory.statePage({ offset: 1, limit: 2 });
    expect(page.visibleMessages.map((m) => m.kind === 'message' && m.content)).toEqual([
      'm1',
      'm2',
    ]);
    expect(page.totals).toMatchObject({ messages: 5, visibleMessages: 5 });
  });

  it('replays a memory from a seq and then follows it live', async () => {
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'a' });
    await memory.recordMessage({ speaker: 'user', content: 'b' });
    const received = firstValueFrom(memory.changes({ fromSeq: 1 }).pipe(take(3), toArray()));
    await memory.recordMessage({ speaker: 'user', content: 'c' });
    await memory.recordMessage({ speaker: 'user', content: 'd' });
    expect((await received).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('keeps two memories apart in every query', async () => {
    const alice = await memledger.memory('alice');
    const bob = await memledger.memory('bob');
    const secret = await alice.recordMessage({ speaker: 'alice', content: 'alice secret plan' });
    await bob.recordMessage({ speaker: 'bob', content: 'bob notes' });
    expect((await bob.recall({ query: 'secret plan' })).items).toEqual([]);
    expect(await bob.search('secret')).toEqual([]);
    expect((await rejectionOf(bob.getEvent(secret.id))).code).toBe('EVENT_NOT_FOUND');
    expect((await rejectionOf(bob.deleteContent({ targets: [secret.id], reason: 'x' }))).code).toBe(
      'DELETION_TARGET_UNKNOWN',
    );
    expect((await bob.state()).visibleMessages.map((m) => m.speaker)).toEqual(['bob']);
  });

  it('answers a burst of concurrent recalls on one memory without giving up', async () => {
    const memory = await memledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'the deploy key is in the vault' });
    const results = await Promise.all(
      Array.from({ length: 30 }, () => memory.recall({ query: 'deploy key' })),
    );
    expect(results.map((r) => r.recall.seq).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    expect(results.every((r) => r.items.length === 1)).toBe(true);
  });

  it('fails a recall whose asynchronous retriever never answers with RETRIEVER_TIMEOUT naming the limit, and appends nothing', async () => {
    const patient = openMemledger({
      store: kind.open(),
      retriever: { retrieve: () => new Promise<readonly string[]>(() => undefined) },
      retrieverTimeoutMs: 50,
    });
    try {
      const memory = await patient.memory();
      await memory.recordMessage({ speaker: 'user', content: 'tea note' });

      const error = await rejectionOf(memory.recall({ query: 'tea note' }));

      expect(error.code).toBe('RETRIEVER_TIMEOUT');
      expect(error.message).toContain('50 ms');
      expect((await memory.readEvents()).map((event) => event.kind)).toEqual(['message']);
    } finally {
      await patient.close();
    }
  });

  it('rejects input of the wrong type with VALIDATION_FAILED naming the field, never a TypeError', async () => {
    const memory = await memledger.memory();
    const untyped = memory as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    expect(await rejectionOf(untyped.search!(5))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid query: must be a string.',
    });
    expect(await rejectionOf(untyped.getEvent!(5))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid id: must be a string.',
    });
    expect(await rejectionOf(untyped.recall!('deploy'))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(await rejectionOf(untyped.recall!({ query: '  ' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('query') as string,
    });
    expect(await memory.readEvents()).toEqual([]);
  });

  it('enforces retention by appending a visible Deletion once retainUntil has passed', async () => {
    const memory = await memledger.memory();
    const short = await memory.recordMessage({
      speaker: 'user',
      content: 'temp',
      retainUntil: '2026-06-01T00:00:00Z',
    });
    await memory.recordMessage({ speaker: 'user', content: 'keep' });
    expect(await sweepExpired(memory, new Date('2026-05-31T23:59:59Z'))).toEqual([]);
    const [deletion] = await sweepExpired(memory, new Date('2026-06-01T00:00:00Z'));
    expect(deletion).toMatchObject({
      targets: [short.id],
      requestedBy: 'retention-policy',
      reason: 'retainUntil 2026-06-01T00:00:00.000Z has passed',
    });
    expect((await memory.getEvent(short.id)).deleted).toBe(true);
  });
});

describe('memledger read models across restarts', () => {
  const [, sqlite] = storeKinds();
  afterEach(() => sqlite!.cleanup());

  it('keeps the read models in the store file: a reopened memory stands at the log head before any query', async () => {
    const first = openMemledger({ store: sqlite!.open() });
    const memory = await first.memory();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await memory.recordMessage({ speaker: 'u', content: `note ${i} about tea` })).id);
    await memory.deleteContent({ targets: [ids[2]!], reason: 'x' });
    await memory.recall({ query: 'tea' });
    const before = await memory.state();
    await first.close();

    const second = openMemledger({ store: sqlite!.reopen()! });
    const again = await second.memory();
    expect(again.readModelSeq).toBe(before.lastSeq);
    const after = await again.state();
    expect(after).toEqual(before);
    expect(after).toEqual(replay(await again.readEvents()));
    const log = await again.readEvents();
    for (const n of [-1, 3, 7, before.lastSeq!]) {
      expect(await again.statePage({ upToSeq: n })).toEqual(
        pageOfState(replay(log.slice(0, n + 1))),
      );
    }
    expect((await again.search('tea', { limit: 10 })).map((h) => h.id).sort()).toEqual(
      ids.filter((id) => id !== ids[2]).sort(),
    );
    await second.close();
  });

  it('rebuilds dropped read models from the log to the same answers', async () => {
    const memledger = openMemledger({ store: sqlite!.open() });
    const memory = await memledger.memory();
    const a = await memory.recordMessage({ speaker: 'u', content: 'tea in Bern' });
    await memory.addDocument({ name: 'b.md', text: 'more tea' });
    await memory.deleteContent({ targets: [a.id], reason: 'x' });
    await memory.recall({ query: 'tea' });
    const before = { state: await memory.state(), page: await memory.statePage({ upToSeq: 1 }) };
    const progress: number[] = [];
    expect(await memory.rebuild((applied) => progress.push(applied))).toBe(3);
    expect(progress.at(-1)).toBe(4);
    expect(await memory.state()).toEqual(before.state);
    expect(await memory.statePage({ upToSeq: 1 })).toEqual(before.page);
    expect(await memory.history(a.id)).toMatchObject({ deletedBy: { seq: 2 } });
    await memledger.close();
  });
});
