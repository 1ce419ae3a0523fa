/**
 * The host application's principal through the Nest buses: a command carries the principal the
 * host authenticated (its own guard, a request-scoped value) as `recordedBy`, and it is recorded
 * beside the caller's claimed `actor`.
 */
import {
  DeleteContentCommand,
  GetItemHistoryQuery,
  RecallCommand,
  RecordMessageCommand,
} from '../../src/nest.js';
import { startMemoryApp, type MemoryApp } from './nest-stores.js';

const host = { principal: 'alice@example.com', via: 'local' } as const;

describe('MemoryModule with the host principal', () => {
  let app: MemoryApp;
  beforeEach(async () => {
    app = await startMemoryApp({ store: { kind: 'in-memory' } });
  });
  afterEach(() => app.moduleRef.close());

  it('records the principal of every command as recordedBy, beside the claimed actor', async () => {
    const { commands, queries } = app;
    const message = await commands.execute(
      new RecordMessageCommand('m', {
        speaker: 'u',
        content: 'the deploy key',
        actor: 'ui',
        recordedBy: host,
      }),
    );
    const { recall } = await commands.execute(
      new RecallCommand('m', { query: 'deploy key', actor: 'agent', recordedBy: host }),
    );
    const deletion = await commands.execute(
      new DeleteContentCommand('m', { targets: [message.id], reason: 'asked', recordedBy: host }),
    );
    expect(message).toMatchObject({ actor: 'ui', recordedBy: host });
    expect(recall).toMatchObject({ actor: 'agent', recordedBy: host });
    expect(deletion.recordedBy).toEqual(host);
    const history = await queries.execute(new GetItemHistoryQuery('m', message.id));
    expect(history.recalls[0]).toMatchObject({ actor: 'agent', recordedBy: host });
  });

  it('records nobody when the command names no principal', async () => {
    const message = await app.commands.execute(
      new RecordMessageCommand('m', { speaker: 'u', content: 'anonymous' }),
    );
    expect(message.recordedBy).toBeNull();
  });
});
