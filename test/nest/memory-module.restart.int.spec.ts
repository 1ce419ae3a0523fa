/** Restart of MemoryModule on a durable store with file snapshots: resume from the checkpoint. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
  let snapshotDir: string;
  let apps: MemoryApp[];
  beforeEach(async () => {
    await kind.setup();
    snapshotDir = mkdtempSync(join(tmpdir(), 'memledger-nest-snapshots-'));
    apps = [];
  });
  afterEach(async () => {
    for (const app of apps) await app.moduleRef.close();
    await kind.cleanup();
    rmSync(snapshotDir, { recursive: true, force: true });
  });
  const start = async (options: MemoryModuleOptions) => {
    const app = await startMemoryApp(options);
    apps.push(app);
    return app;
  };

  it('rebuilds read models identical to replay() of the log, resuming from the snapshot checkpoint', async () => {
    const options = { store: kind.config(), snapshots: { dir: snapshotDir }, snapshotEvery: 3 };
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
    expect(existsSync(join(snapshotDir, 'memory-default.snapshot.json'))).toBe(true);

    const second = await start(options);
    const memory = await second.moduleRef.get<Memledger>(MEMLEDGER).memory();
    expect(memory.resumedFrom).toBe(before.lastSeq);
    expect(memory.checkpoint).toBe(before.lastSeq);
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

  it('folds from zero without snapshots and reaches the same read models', async () => {
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
    expect(memory.resumedFrom).toBeNull();
    expect(await second.queries.execute(new GetMemoryStateQuery(undefined))).toEqual(before);
  });
});
