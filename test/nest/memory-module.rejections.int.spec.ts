/** Every rejection of MemoryModule, with its error code, through the Nest buses, on each durable store. */
import {
  AddDocumentCommand,
  DeleteContentCommand,
  GetEventQuery,
  GetItemHistoryQuery,
  GetMemoryStateQuery,
  ReadEventsQuery,
  RecallCommand,
  RecordMessageCommand,
  RecordRecallCommand,
  SearchMemoryQuery,
} from '../../src/nest.js';
import { rejectionOf } from '../support/collect.js';
import { nestStoreKinds, useMemoryApp } from './nest-stores.js';

const kinds = nestStoreKinds();
const UNKNOWN_ID = '0193a4c2-0000-7000-8000-0000000000aa';

interface Rejection {
  code?: string;
  message: string;
  issues?: { path: string; message: string }[];
}
const rejected = (promise: Promise<unknown>) => rejectionOf(promise) as Promise<Rejection>;
const paths = (error: Rejection) => (error.issues ?? []).map((issue) => issue.path).sort();
/** Untyped input, as an HTTP body may be. */
const untyped = <T>(value: unknown) => value as T;

describe.each(kinds)('MemoryModule rejections on $name', (kind) => {
  const app = useMemoryApp(kind);

  it('rejects invalid fields with VALIDATION_FAILED listing every failing path', async () => {
    const { commands } = app;
    const message = await rejected(
      commands.execute(new RecordMessageCommand(undefined, { speaker: '', content: '   ' })),
    );
    expect(message.code).toBe('VALIDATION_FAILED');
    expect(paths(message)).toEqual(['content', 'speaker']);
    expect(message.message).toMatch(/content: .*speaker: |speaker: .*content: /);

    const document = await rejected(
      commands.execute(
        new AddDocumentCommand(undefined, { name: 'a.md', text: 'x', sha256: 'ABC' }),
      ),
    );
    expect([document.code, paths(document)]).toEqual(['VALIDATION_FAILED', ['sha256']]);

    const deletion = await rejected(
      commands.execute(new DeleteContentCommand(undefined, { targets: [], reason: '' })),
    );
    expect([deletion.code, paths(deletion)]).toEqual(['VALIDATION_FAILED', ['reason', 'targets']]);

    const recallQuery = await rejected(
      commands.execute(new RecallCommand(undefined, { query: untyped<string>(42) })),
    );
    expect([recallQuery.code, paths(recallQuery)]).toEqual(['VALIDATION_FAILED', ['query']]);
    const recallLimit = await rejected(
      commands.execute(new RecallCommand(undefined, { query: 'q', limit: 0 })),
    );
    expect([recallLimit.code, paths(recallLimit)]).toEqual(['VALIDATION_FAILED', ['limit']]);
    const recorded = await rejected(
      commands.execute(
        new RecordRecallCommand(undefined, { query: 'q', recalled: ['not-a-uuid'] }),
      ),
    );
    expect([recorded.code, paths(recorded)]).toEqual(['VALIDATION_FAILED', ['recalled.0']]);
  });

  it('rejects a body that is not an object with VALIDATION_FAILED, never a TypeError', async () => {
    const { commands } = app;
    const attempts = [
      commands.execute(new RecordMessageCommand(undefined, untyped('hello'))),
      commands.execute(new AddDocumentCommand(undefined, untyped(null))),
      commands.execute(new RecordRecallCommand(undefined, untyped([1, 2]))),
      commands.execute(new DeleteContentCommand(undefined, untyped(42))),
      commands.execute(new RecallCommand(undefined, untyped(undefined))),
      commands.execute(new RecallCommand(undefined, untyped('deploy key'))),
    ];
    for (const attempt of attempts) {
      const error = await rejected(attempt);
      expect(error).toMatchObject({ name: 'MemoryError', code: 'VALIDATION_FAILED' });
      expect(paths(error)).toEqual(['(root)']);
    }
  });

  it('rejects bad query options with VALIDATION_FAILED naming the option', async () => {
    const { queries } = app;
    const tooMany = await rejected(
      queries.execute(new ReadEventsQuery(undefined, { limit: 1001 })),
    );
    expect([tooMany.code, paths(tooMany)]).toEqual(['VALIDATION_FAILED', ['limit']]);
    const negative = await rejected(
      queries.execute(new ReadEventsQuery(undefined, { fromSeq: -1 })),
    );
    expect([negative.code, paths(negative)]).toEqual(['VALIDATION_FAILED', ['fromSeq']]);
    expect(
      (await rejected(queries.execute(new GetMemoryStateQuery(undefined, { limit: 0 })))).code,
    ).toBe('VALIDATION_FAILED');
    const search = await rejected(queries.execute(new SearchMemoryQuery(undefined, untyped(42))));
    expect([search.code, paths(search)]).toEqual(['VALIDATION_FAILED', ['query']]);
    const lookup = await rejected(queries.execute(new GetEventQuery(undefined, untyped({}))));
    expect([lookup.code, paths(lookup)]).toEqual(['VALIDATION_FAILED', ['id']]);
  });

  it('rejects an invalid memory id with INVALID_MEMORY_ID in commands and queries', async () => {
    const { commands, queries } = app;
    const command = await rejected(
      commands.execute(
        new RecordMessageCommand('no spaces allowed', { speaker: 'u', content: 'x' }),
      ),
    );
    expect(command.code).toBe('INVALID_MEMORY_ID');
    expect(command.message).toContain('no spaces allowed');
    expect((await rejected(queries.execute(new ReadEventsQuery('a/b')))).code).toBe(
      'INVALID_MEMORY_ID',
    );
    expect(
      (await rejected(commands.execute(new RecallCommand('x'.repeat(129), { query: 'q' })))).code,
    ).toBe('INVALID_MEMORY_ID');
  });

  it('rejects deletions of unknown ids, non-content and content already deleted', async () => {
    const { commands } = app;
    const m = await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'u', content: 'x' }),
    );
    const { recall } = await commands.execute(new RecallCommand(undefined, { query: 'x' }));
    const unknown = await rejected(
      commands.execute(new DeleteContentCommand(undefined, { targets: [UNKNOWN_ID], reason: 'r' })),
    );
    expect(unknown.code).toBe('DELETION_TARGET_UNKNOWN');
    expect(unknown.message).toContain(UNKNOWN_ID);
    const notContent = await rejected(
      commands.execute(new DeleteContentCommand(undefined, { targets: [recall.id], reason: 'r' })),
    );
    expect(notContent.code).toBe('DELETION_TARGET_NOT_CONTENT');
    expect(notContent.message).toContain(recall.id);
    await commands.execute(new DeleteContentCommand(undefined, { targets: [m.id], reason: 'r' }));
    const again = await rejected(
      commands.execute(new DeleteContentCommand(undefined, { targets: [m.id], reason: 'r' })),
    );
    expect(again.code).toBe('ALREADY_DELETED');
    expect(again.message).toContain(m.id);
  });

  it('rejects recorded recalls of unknown ids, non-content and deleted content', async () => {
    const { commands } = app;
    const m = await commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'u', content: 'x' }),
    );
    const deletion = await commands.execute(
      new DeleteContentCommand(undefined, { targets: [m.id], reason: 'r' }),
    );
    const cases = [
      [UNKNOWN_ID, 'RECALL_TARGET_UNKNOWN'],
      [deletion.id, 'RECALL_TARGET_NOT_CONTENT'],
      [m.id, 'RECALL_TARGET_DELETED'],
    ] as const;
    for (const [id, code] of cases) {
      const error = await rejected(
        commands.execute(new RecordRecallCommand(undefined, { query: 'q', recalled: [id] })),
      );
      expect([error.code, error.message.includes(id)]).toEqual([code, true]);
    }
  });

  it('rejects a lookup of an id the memory does not hold with EVENT_NOT_FOUND', async () => {
    const { queries } = app;
    expect((await rejected(queries.execute(new GetEventQuery(undefined, UNKNOWN_ID)))).code).toBe(
      'EVENT_NOT_FOUND',
    );
    expect(
      (await rejected(queries.execute(new GetItemHistoryQuery('other', UNKNOWN_ID)))).code,
    ).toBe('EVENT_NOT_FOUND');
  });

  it('returns the stored event for a repeated id with the same content and rejects other content with ID_CONFLICT', async () => {
    const { commands } = app;
    const input = {
      id: UNKNOWN_ID,
      speaker: 'u',
      content: 'once',
      timestamp: '2026-01-01T00:00:00Z',
    };
    const first = await commands.execute(new RecordMessageCommand(undefined, input));
    expect(await commands.execute(new RecordMessageCommand(undefined, input))).toEqual(first);
    const conflict = await rejected(
      commands.execute(new RecordMessageCommand(undefined, { ...input, content: 'twice' })),
    );
    expect(conflict.code).toBe('ID_CONFLICT');
    expect(conflict.message).toContain(UNKNOWN_ID);
  });

  it('writes nothing when it rejects', async () => {
    const { commands, queries } = app;
    await commands.execute(new RecordMessageCommand(undefined, { speaker: 'u', content: 'kept' }));
    await rejected(
      commands.execute(new RecordMessageCommand(undefined, { speaker: '', content: '' })),
    );
    await rejected(
      commands.execute(new DeleteContentCommand(undefined, { targets: [UNKNOWN_ID], reason: 'r' })),
    );
    await rejected(
      commands.execute(new RecordRecallCommand(undefined, { query: 'q', recalled: [UNKNOWN_ID] })),
    );
    expect((await queries.execute(new ReadEventsQuery(undefined))).map((e) => e.seq)).toEqual([0]);
  });
});
