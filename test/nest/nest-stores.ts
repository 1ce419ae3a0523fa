/**
 * The durable stores the Nest suites run on, and a helper that boots `MemoryModule` in a Nest
 * TestingModule. EventStoreDB runs on the in-process test server (real db-client, real gRPC).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleMetadata } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryModule, type MemoryModuleOptions } from '../../src/nest.js';
import type { StoreConfig } from '../../src/store/open-store.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

/** A durable store kind: every `config()` between `setup` and `cleanup` names the same data. */
export interface NestStoreKind {
  readonly name: string;
  setup(): Promise<void>;
  config(): StoreConfig;
  cleanup(): Promise<void>;
}

function sqliteKind(): NestStoreKind {
  let dir = '';
  return {
    name: 'SQLite',
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'memledger-nest-'));
    },
    config: () => ({ kind: 'sqlite', path: join(dir, 'memory.db'), pollMs: 20 }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function esdbKind(): NestStoreKind {
  let server: EsdbTestServer | undefined;
  return {
    name: 'EventStoreDB (in-process test server)',
    setup: async () => {
      server = await startEsdbTestServer();
    },
    config: () => ({ kind: 'eventstoredb', connectionString: server!.connectionString }),
    cleanup: async () => {
      await server?.close();
      server = undefined;
    },
  };
}

/** SQLite (temp file) and EventStoreDB (in-process test server). */
export function nestStoreKinds(): NestStoreKind[] {
  return [sqliteKind(), esdbKind()];
}

/** A booted TestingModule importing `MemoryModule.forRoot(options)`, with its buses. */
export interface MemoryApp {
  readonly moduleRef: TestingModule;
  readonly commands: CommandBus;
  readonly queries: QueryBus;
}

/** Compiles and initializes a TestingModule around `MemoryModule.forRoot(options)`. */
export async function startMemoryApp(
  options: MemoryModuleOptions,
  extra: Pick<ModuleMetadata, 'imports' | 'providers'> = {},
): Promise<MemoryApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [MemoryModule.forRoot(options), ...(extra.imports ?? [])],
    providers: extra.providers ?? [],
  }).compile();
  await moduleRef.init();
  return { moduleRef, commands: moduleRef.get(CommandBus), queries: moduleRef.get(QueryBus) };
}

/**
 * Registers the per-test lifecycle of an app on `kind` (store set-up, boot, close, clean-up) and
 * returns a handle whose buses are those of the current test's app.
 */
export function useMemoryApp(
  kind: NestStoreKind,
  extra: Pick<ModuleMetadata, 'imports' | 'providers'> = {},
): MemoryApp {
  let current: MemoryApp | undefined;
  beforeEach(async () => {
    await kind.setup();
    current = await startMemoryApp({ store: kind.config() }, extra);
  });
  afterEach(async () => {
    await current?.moduleRef.close();
    current = undefined;
    await kind.cleanup();
  });
  const app = (): MemoryApp => {
    if (!current) throw new Error('The memory app exists only while a test runs.');
    return current;
  };
  return {
    get moduleRef() {
      return app().moduleRef;
    },
    get commands() {
      return app().commands;
    },
    get queries() {
      return app().queries;
    },
  };
}

/** Polls `check` until it returns true, failing after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
