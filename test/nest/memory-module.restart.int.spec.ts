/** Restart of MemoryModule on a durable store: read models on disk stand at the log's head. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay } from '../../src/core/index.js';
import type { Memledger } from '../../src/memory/index.js';
import {
  AddDocumentCommand,
  DeleteContentCommand,
  GetMemoryStateQuery,
  GetRecallStatsQuery,
  MEMLEDGER,
  ReadEventsQuery,
  RecallCommand,
  RecordMessageCommand,
  SearchMemoryQuery,
  type MemoryModuleOptions,
} from '../../src/nest.js';
import { nestStoreKinds, startMemoryApp, type MemoryApp } from './nest-stores.js';

const kinds = nestStoreKinds();

describe.each(kinds)('MemoryModule restart on $name', (kind) => {
  let readModelDir: string;
  let apps: MemoryApp[];
  beforeEach(async () => {
    await kind.setup();
    readModelDir = mkdtempSync(join(tmpdir(), 'memledger-nest-read-models-'));
    apps = [];
  });
  afterEach(async () => {
    for (const app of apps) await app.moduleRef.close();
    await kind.cleanup();
    rmSync(readModelDir, { recursive: true, force: true });
  });
  const start = async (options: MemoryModuleOptions) => {
    const app = await startMemoryApp(options);
    apps.push(app);
    return app;
  };

  it('reopens read models kept on disk at the log head, identical to replay() of the log', async () => {
    // The SQLite store keeps them in its own file; EventStoreDB in the read-model file.
    const options = { store: kind.config(), readModels: join(readModelDir, 'read-models.db') };
    const first = await start(options);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const m = await first.commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'u', content: `note ${i} about tea` }),
      );
      ids.push(m.id);
    }
    ids.push(
      (
        await first.commands.execute(
          new AddDocumentCommand(undefined, { name: 'tea.md', text: 'green tea' }),
        )
      ).id,
    );
    await first.commands.execute(
      new DeleteContentCommand(undefined, { targets: [ids[2]!], reason: 'x' }),
    );
    await first.commands.execute(new RecallCommand(undefined, { query: 'tea' }));
    const before = await first.queries.execute(new GetMemoryStateQuery(undefined, { limit: 1000 }));
    const statsBefore = await first.queries.execute(new GetRecallStatsQuery(undefined));
    await first.moduleRef.close();
    apps = [];

    const second = await start(options);
    const memory = await second.moduleRef.get<Memledger>(MEMLEDGER).memory();
    expect(memory.readModelSeq).toBe(before.lastSeq);
    expect(
      await second.queries.execute(new GetMemoryStateQuery(undefined, { limit: 1000 })),
    ).toEqual(before);
    expect(await second.queries.execute(new GetRecallStatsQuery(undefined))).toEqual(statsBefore);

    const log = await second.queries.execute(new ReadEventsQuery(undefined, { limit: 1000 }));
    const replayed = replay(log);
    expect(await memory.state()).toEqual(replayed);
    expect(before.visibleMessages).toEqual(replayed.visibleMessages);
    expect(before.visibleDocuments).toEqual(replayed.visibleDocuments);
    expect(before.deleted).toEqual(replayed.deleted);
    expect(statsBefore).toEqual(replayed.recallStats);
    const hits = await second.queries.execute(
      new SearchMemoryQuery(undefined, 'tea', { limit: 10 }),
    );
    expect(hits.map((h) => h.id).sort()).toEqual(ids.filter((id) => id !== ids[2]).sort());
  });

  it('builds the read models from the log when they start empty, to the same answers', async () => {
    const first = await start({ store: kind.config() });
    for (let i = 0; i < 4; i++)
      await first.commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'u', content: `m${i}` }),
      );
    const before = await first.queries.execute(new GetMemoryStateQuery(undefined));
    await first.moduleRef.close();
    apps = [];

    const second = await start({ store: kind.config() });
    const memory = await second.moduleRef.get<Memledger>(MEMLEDGER).memory();
    if (kind.name !== 'SQLite') expect(memory.readModelSeq).toBeNull();
    expect(await second.queries.execute(new GetMemoryStateQuery(undefined))).toEqual(before);
  });
});
