/**
 * Erasure through the Nest CommandBus, on each durable store sealed with a key store beside it:
 * `EraseContentCommand`, `DeleteContentCommand` with `{ erase: true }`, the queries showing the
 * erasure marker and the act, and each refusal with its code and nothing written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteContentCommand,
  EraseContentCommand,
  GetEventQuery,
  GetItemHistoryQuery,
  GetMemoryStateQuery,
  ReadEventsQuery,
  RecordMessageCommand,
  RecordRecallCommand,
} from '../../src/nest.js';
import { rejectionOf } from '../support/collect.js';
import { nestStoreKinds, startMemoryApp, useMemoryApp, type NestStoreKind } from './nest-stores.js';

const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';

/** `kind` with its content sealed by a key store in a temp folder of its own. */
function sealed(kind: NestStoreKind): NestStoreKind {
  let dir = '';
  return {
    name: `${kind.name}, sealed`,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'memledger-nest-keys-'));
      await kind.setup();
    },
    config: () => ({
      ...kind.config(),
      keys: { kind: 'beside', path: join(dir, 'store'), env: {} },
    }),
    cleanup: async () => {
      await kind.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each(nestStoreKinds().map(sealed))('Erasure through MemoryModule on $name', (kind) => {
  const app = useMemoryApp(kind);
  const say = (content: string) =>
    app.commands.execute(new RecordMessageCommand('gdpr', { speaker: 'user', content }));

  it('erases deleted content with EraseContentCommand: the queries show the act, not the words', async () => {
    const { commands, queries } = app;
    const m = await say('My card number is 4242 4242 4242 4242.');
    const deletion = await commands.execute(
      new DeleteContentCommand('gdpr', { targets: [m.id], reason: 'card number' }),
    );
    const { erasure, cleanup } = await commands.execute(
      new EraseContentCommand('gdpr', {
        targets: [m.id],
        reason: 'GDPR art. 17',
        requestedBy: 'dpo',
      }),
    );
    expect(cleanup).toEqual({ state: 'done' });
    expect(erasure).toMatchObject({
      kind: 'erasure',
      targets: [m.id],
      reason: 'GDPR art. 17',
      requestedBy: 'dpo',
      seq: deletion.seq + 1,
    });
    const lookup = await queries.execute(new GetEventQuery('gdpr', m.id));
    expect(lookup.event).toMatchObject({ id: m.id, content: null, erased: true });
    expect(lookup).toMatchObject({ deleted: true, deletedBy: deletion, erasedBy: erasure });
    expect((await queries.execute(new GetItemHistoryQuery('gdpr', m.id))).erasedBy).toEqual(
      erasure,
    );
    const page = await queries.execute(new GetMemoryStateQuery('gdpr', {}));
    expect(page.erased).toEqual({ [m.id]: erasure });
    const events = await queries.execute(new ReadEventsQuery('gdpr', {}));
    // The words, not a digit run: a random id may hold "4242" (one did, in a CI run).
    expect(JSON.stringify(events)).not.toContain('4242 4242');
  });

  it('deletes and erases in one append with DeleteContentCommand { erase: true }', async () => {
    const m = await say('Forget me entirely.');
    const { deletion, erasure } = await app.commands.execute(
      new DeleteContentCommand(
        'gdpr',
        { targets: [m.id], reason: 'asked', requestedBy: 'user-1' },
        { erase: true },
      ),
    );
    expect(deletion).toMatchObject({ kind: 'deletion', targets: [m.id], seq: m.seq + 1 });
    expect(erasure).toMatchObject({
      kind: 'erasure',
      targets: [m.id],
      reason: 'asked',
      requestedBy: 'user-1',
      seq: m.seq + 2,
    });
    const lookup = await app.queries.execute(new GetEventQuery('gdpr', m.id));
    expect(lookup.event).toMatchObject({ content: null, erased: true });
  });

  it('refuses erasing twice, visible content, a recall and an unknown id, writing nothing', async () => {
    const { commands, queries } = app;
    const visible = await say('Still here.');
    const gone = await say('Gone for good.');
    await commands.execute(
      new DeleteContentCommand('gdpr', { targets: [gone.id], reason: 'x' }, { erase: true }),
    );
    const recall = await commands.execute(
      new RecordRecallCommand('gdpr', { query: 'q', recalled: [visible.id] }),
    );
    const before = await queries.execute(new ReadEventsQuery('gdpr', {}));
    const cases: [string, string][] = [
      [gone.id, 'ALREADY_ERASED'],
      [visible.id, 'ERASURE_TARGET_NOT_DELETED'],
      [recall.id, 'ERASURE_TARGET_NOT_CONTENT'],
      [UNKNOWN_ID, 'ERASURE_TARGET_UNKNOWN'],
    ];
    for (const [target, code] of cases) {
      const error = await rejectionOf(
        commands.execute(new EraseContentCommand('gdpr', { targets: [target], reason: 'why' })),
      );
      expect([target, error]).toEqual([target, expect.objectContaining({ code })]);
    }
    expect(await queries.execute(new ReadEventsQuery('gdpr', {}))).toEqual(before);
  });
});

describe('Erasure through MemoryModule on a store without keys', () => {
  const [kind] = nestStoreKinds();

  it('refuses EraseContentCommand and DeleteContentCommand { erase: true } with ERASURE_UNAVAILABLE', async () => {
    await kind!.setup();
    const { moduleRef, commands, queries } = await startMemoryApp({ store: kind!.config() });
    try {
      const m = await commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'u', content: 'plain text' }),
      );
      const input = { targets: [m.id], reason: 'forget' };
      expect(
        await rejectionOf(
          commands.execute(new DeleteContentCommand(undefined, input, { erase: true })),
        ),
      ).toMatchObject({ code: 'ERASURE_UNAVAILABLE' });
      await commands.execute(new DeleteContentCommand(undefined, input));
      expect(
        await rejectionOf(commands.execute(new EraseContentCommand(undefined, input))),
      ).toMatchObject({ code: 'ERASURE_UNAVAILABLE' });
      const events = await queries.execute(new ReadEventsQuery(undefined, {}));
      expect(events.map((e) => e.kind)).toEqual(['message', 'deletion']);
    } finally {
      await moduleRef.close();
      await kind!.cleanup();
    }
  });
});
