/**
 * Every command and query of MemoryModule through the Nest CommandBus and QueryBus, on each
 * durable store.
 */
import { replay } from '../../src/core/index.js';
import {
  AddDocumentCommand,
  DeleteContentCommand,
  GetEventQuery,
  GetItemHistoryQuery,
  GetMemoryStateQuery,
  GetRecallStatsQuery,
  ListMemoriesQuery,
  ReadEventsQuery,
  RecallCommand,
  RecordMessageCommand,
  RecordRecallCommand,
  SearchMemoryQuery,
} from '../../src/nest.js';
import { rejectionOf } from '../support/collect.js';
import { nestStoreKinds, startMemoryApp, useMemoryApp } from './nest-stores.js';

const kinds = nestStoreKinds();

describe.each(kinds)('MemoryModule commands and queries on $name', (kind) => {
  const app = useMemoryApp(kind);

  it('records a message and a document in the default memory and reads them in the state', async () => {
    const { commands, queries } = app;
    const m = await commands.execute(
      new RecordMessageCommand(undefined, {
        speaker: 'user',
        content: 'The staging key rotates weekly.',
      }),
    );
    const d = await commands.execute(
      new AddDocumentCommand(undefined, {
        name: 'policy.md',
        text: 'Keys rotate every seven days.',
      }),
    );
    expect(m).toMatchObject({ kind: 'message', seq: 0, source: 'unknown' });
    expect(d).toMatchObject({ kind: 'document', seq: 1, mediaType: 'text/plain' });
    const page = await queries.execute(new GetMemoryStateQuery(undefined, {}));
    expect(page.lastSeq).toBe(1);
    expect(page.visibleMessages).toEqual([m]);
    expect(page.visibleDocuments).toEqual([d]);
    expect(await queries.execute(new ListMemoriesQuery())).toEqual(['default']);
  });

  it('recalls visible matches, puts the Recall on record first, and counts it in the recall stats', async () => {
    const { commands, queries } = app;
    const hit = await commands.execute(
      new RecordMessageCommand('agent-1', {
        speaker: 'user',
        content: 'The deploy key lives in the vault.',
      }),
    );
    await commands.execute(
      new RecordMessageCommand('agent-1', { speaker: 'user', content: 'Lunch is at noon.' }),
    );
    const { recall, items } = await commands.execute(
      new RecallCommand('agent-1', { query: 'deploy key', actor: 'planner', limit: undefined }),
    );
    expect(items).toEqual([hit]);
    expect(recall).toMatchObject({
      kind: 'recall',
      query: 'deploy key',
      recalled: [hit.id],
      seq: 2,
      actor: 'planner',
    });
    const stats = await queries.execute(new GetRecallStatsQuery('agent-1'));
    expect(stats[hit.id]).toMatchObject({ count: 1, lastRecalledSeq: 2 });
    const events = await queries.execute(new ReadEventsQuery('agent-1', {}));
    expect(events.at(-1)).toEqual(recall);
  });

  it('passes retrieverTimeoutMs to the recall: a retriever that never answers fails it with RETRIEVER_TIMEOUT', async () => {
    await app.moduleRef.close(); // this test boots its own app on the same store
    const own = await startMemoryApp({
      store: kind.config(),
      retriever: { retrieve: () => new Promise<readonly string[]>(() => undefined) },
      retrieverTimeoutMs: 50,
      recallRetries: 0,
    });
    try {
      await own.commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'user', content: 'blue door' }),
      );
      const error = await rejectionOf(
        own.commands.execute(new RecallCommand(undefined, { query: 'door', limit: undefined })),
      );
      expect(error).toMatchObject({ code: 'RETRIEVER_TIMEOUT' });
      expect(error.message).toContain('50 ms');
    } finally {
      await own.moduleRef.close();
    }
  });

  it('records a recall the caller computed itself', async () => {
    const { commands, queries } = app;
    const m = await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'user', content: 'blue door' }),
    );
    const recall = await commands.execute(
      new RecordRecallCommand(undefined, {
        query: 'door',
        recalled: [m.id],
        actor: 'own-retriever',
      }),
    );
    expect(recall).toMatchObject({ kind: 'recall', seq: 1, recalled: [m.id] });
    expect((await queries.execute(new GetRecallStatsQuery(undefined)))[m.id]).toMatchObject({
      count: 1,
    });
  });

  it('deletes content: gone from state, search and recall, still retrievable by id with its Deletion and history', async () => {
    const { commands, queries } = app;
    const secret = await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'user', content: 'My card number is 4242.' }),
    );
    const { recall } = await commands.execute(
      new RecallCommand(undefined, { query: 'card number', sessionId: 's-1' }),
    );
    const deletion = await commands.execute(
      new DeleteContentCommand(undefined, {
        targets: [secret.id],
        reason: 'PII',
        requestedBy: 'alice',
      }),
    );
    expect(deletion).toMatchObject({ kind: 'deletion', seq: 2, targets: [secret.id] });

    expect(
      (await commands.execute(new RecallCommand(undefined, { query: 'card number' }))).items,
    ).toEqual([]);
    expect(await queries.execute(new SearchMemoryQuery(undefined, 'card number'))).toEqual([]);
    const asOfBefore = await queries.execute(
      new SearchMemoryQuery(undefined, 'card number', { asOfSeq: 0 }),
    );
    expect(asOfBefore.map((r) => r.item)).toEqual([secret]);
    const page = await queries.execute(new GetMemoryStateQuery(undefined));
    expect(page.visibleMessages).toEqual([]);
    expect(page.deleted[secret.id]).toEqual(deletion);

    expect(await queries.execute(new GetEventQuery(undefined, secret.id))).toEqual({
      event: secret,
      deleted: true,
      deletedBy: deletion,
      erasedBy: null,
    });
    const history = await queries.execute(new GetItemHistoryQuery(undefined, secret.id));
    expect(history.event).toEqual(secret);
    expect(history.recalls).toEqual([
      expect.objectContaining({
        recallId: recall.id,
        query: 'card number',
        seq: 1,
        sessionId: 's-1',
      }),
    ]);
    expect(history.deletedBy).toEqual(deletion);
  });

  it('answers the state as of any seq, equal to replay of the log prefix', async () => {
    const { commands, queries } = app;
    const first = await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'u', content: 'first' }),
    );
    await commands.execute(
      new DeleteContentCommand(undefined, { targets: [first.id], reason: 'gone' }),
    );
    await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'u', content: 'second' }),
    );
    const events = await queries.execute(new ReadEventsQuery(undefined));
    for (const upToSeq of [0, 1, 2]) {
      const page = await queries.execute(new GetMemoryStateQuery(undefined, { upToSeq }));
      const expected = replay(events.slice(0, upToSeq + 1), { upToSeq });
      expect(page.lastSeq).toBe(upToSeq);
      expect(page.visibleMessages).toEqual(expected.visibleMessages);
      expect(page.deleted).toEqual(expected.deleted);
    }
  });

  it('pages the state and reads the log from a seq with a limit (100 by default)', async () => {
    const { commands, queries } = app;
    for (let i = 0; i < 5; i++)
      await commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'u', content: `m${i}` }),
      );
    const page = await queries.execute(new GetMemoryStateQuery(undefined, { offset: 1, limit: 2 }));
    expect(page.visibleMessages.map((m) => m.kind === 'message' && m.content)).toEqual([
      'm1',
      'm2',
    ]);
    expect(page.totals).toMatchObject({ messages: 5, visibleMessages: 5 });
    const range = await queries.execute(new ReadEventsQuery(undefined, { fromSeq: 2, limit: 2 }));
    expect(range.map((e) => e.seq)).toEqual([2, 3]);
    expect(
      (await queries.execute(new ReadEventsQuery(undefined, { fromSeq: 3 }))).map((e) => e.seq),
    ).toEqual([3, 4]);
  });

  it('keeps two memories of one module apart in every command and query', async () => {
    const { commands, queries } = app;
    const secret = await commands.execute(
      new RecordMessageCommand('alice', { speaker: 'alice', content: 'alice secret plan' }),
    );
    await commands.execute(
      new AddDocumentCommand('alice', { name: 'plan.md', text: 'the secret plan in full' }),
    );
    const bobNote = await commands.execute(
      new RecordMessageCommand('bob', { speaker: 'bob', content: 'bob notes' }),
    );
    await commands.execute(new RecallCommand('alice', { query: 'secret plan' }));

    expect(
      (await commands.execute(new RecallCommand('bob', { query: 'secret plan' }))).items,
    ).toEqual([]);
    expect(await queries.execute(new SearchMemoryQuery('bob', 'secret'))).toEqual([]);
    const bobState = await queries.execute(new GetMemoryStateQuery('bob'));
    expect(bobState.visibleMessages).toEqual([bobNote]);
    expect(bobState.visibleDocuments).toEqual([]);
    expect(bobState.recallStats).toEqual({});
    expect((await rejectionOf(queries.execute(new GetEventQuery('bob', secret.id)))).code).toBe(
      'EVENT_NOT_FOUND',
    );
    expect(
      (await rejectionOf(queries.execute(new GetItemHistoryQuery('bob', secret.id)))).code,
    ).toBe('EVENT_NOT_FOUND');
    expect(
      (
        await rejectionOf(
          commands.execute(new DeleteContentCommand('bob', { targets: [secret.id], reason: 'x' })),
        )
      ).code,
    ).toBe('DELETION_TARGET_UNKNOWN');
    expect(
      (
        await rejectionOf(
          commands.execute(new RecordRecallCommand('bob', { query: 'q', recalled: [secret.id] })),
        )
      ).code,
    ).toBe('RECALL_TARGET_UNKNOWN');
    const bobLog = await queries.execute(new ReadEventsQuery('bob'));
    expect(bobLog.map((e) => e.kind)).toEqual(['message', 'recall']);
    expect(bobLog[1]).toMatchObject({ query: 'secret plan', recalled: [] });
    expect(Object.keys(await queries.execute(new GetRecallStatsQuery('bob')))).toEqual([]);
    expect((await queries.execute(new ListMemoriesQuery())).sort()).toEqual(['alice', 'bob']);
  });
});
