/** MemoryModule.forRootAsync: options from another module's provider, through `imports` + `inject`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Inject, Injectable, Module } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  ListMemoriesQuery,
  MEMLEDGER,
  MemoryEvents,
  MemoryModule,
  RecordMessageCommand,
  type MemoryModuleOptions,
} from '../../src/nest.js';
import type { Memledger } from '../../src/memory/index.js';

/** What a ConfigModule would hold. */
interface Settings {
  readonly databasePath: string;
  readonly tenant: string;
}
const SETTINGS = Symbol('SETTINGS');

let dir: string;
let moduleRef: TestingModule | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-nest-async-'));
});
afterEach(async () => {
  await moduleRef?.close();
  moduleRef = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function settingsModule(settings: Settings) {
  @Module({ providers: [{ provide: SETTINGS, useValue: settings }], exports: [SETTINGS] })
  class SettingsModule {}
  return SettingsModule;
}

describe('MemoryModule.forRootAsync', () => {
  it('builds its options with useFactory from an injected provider of an imported module', async () => {
    const settings = { databasePath: join(dir, 'async.db'), tenant: 'tenant-a' };
    moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRootAsync({
          imports: [settingsModule(settings)],
          inject: [SETTINGS],
          useFactory: async (s: Settings): Promise<MemoryModuleOptions> => ({
            store: { kind: 'sqlite', path: s.databasePath },
            defaultMemoryId: s.tenant,
          }),
        }),
      ],
    }).compile();
    await moduleRef.init();

    await moduleRef
      .get(CommandBus)
      .execute(new RecordMessageCommand(undefined, { speaker: 'u', content: 'hello' }));
    expect(await moduleRef.get(QueryBus).execute(new ListMemoriesQuery())).toEqual(['tenant-a']);
    expect(moduleRef.get<Memledger>(MEMLEDGER).description).toContain('async.db');
  });

  it('with isGlobal, lets a feature module inject MemoryEvents without importing MemoryModule', async () => {
    @Injectable()
    class Feature {
      constructor(@Inject(MemoryEvents) readonly events: MemoryEvents) {}
    }
    @Module({ providers: [Feature], exports: [Feature] })
    class FeatureModule {}

    moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRootAsync({
          isGlobal: true,
          useFactory: () => ({ store: { kind: 'sqlite', path: join(dir, 'global.db') } }),
        }),
        FeatureModule,
      ],
    }).compile();
    await moduleRef.init();
    expect(moduleRef.get(Feature).events).toBe(moduleRef.get(MemoryEvents));
  });

  it('fails the boot on an invalid default memory id', async () => {
    const building = Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({ store: { kind: 'in-memory' }, defaultMemoryId: 'not valid!' }),
      ],
    }).compile();
    await expect(building).rejects.toMatchObject({ code: 'INVALID_MEMORY_ID' });
  });
});
