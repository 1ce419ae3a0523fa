/**
 * The stores the erasure specs run on, each sealed with its own SQLite key store: in-memory,
 * a SQLite file, and EventStoreDB through the in-process test server with a local read-model
 * file and id index file. `open()` gives a fresh memory on fresh files; `reopen()` closes and
 * opens the same data again (durable stores). `openPlain()` opens the same data without keys,
 * for content written in plain text before keys were on.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  masterKeyFromBytes,
  openSqliteKeyStore,
  type KeyStore,
  type MasterKey,
} from '../../src/keys/index.js';
import { openMemledger, type Memledger, type MemoryHandle } from '../../src/memory/index.js';
import type { EventLog, MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { sealedStore, type SealedMemoryStore } from '../../src/store/sealed/sealed-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer, type EsdbTestServer } from './esdb-test-server/index.js';

/** One opened store: the memledger over the sealed store, and the parts a test inspects. */
export interface ErasureEnv {
  readonly memledger: Memledger;
  readonly memory: MemoryHandle;
  /** The sealed store (every read path opens sealed words or shows the marker). */
  readonly store: SealedMemoryStore;
  /** The sealed log of the memory under test. */
  readonly log: EventLog;
  readonly keys: KeyStore;
  readonly memoryId: string;
  /** Files holding this store's data (log, read models, id index, key store), for scans. */
  readonly files: ErasureFiles;
  close(): Promise<void>;
}

/** Where a durable store keeps its bytes. */
export interface ErasureFiles {
  /** The SQLite event file (SQLite store) or `undefined`. */
  readonly log?: string;
  /** The read-model file when it is not the event file. */
  readonly readModels?: string;
  /** The EventStoreDB id index file. */
  readonly idIndex?: string;
  readonly keyStore: string;
}

/** Options of {@link ErasureStoreKind.reopen}. */
export interface ReopenOptions {
  readonly afterClose?: () => void;
  readonly onNotice?: (notice: string) => void;
}

/** A store kind the erasure specs run on. */
export interface ErasureStoreKind {
  readonly name: string;
  readonly durable: boolean;
  /** Fresh data (a new folder, a new memory id). */
  open(): Promise<ErasureEnv>;
  /**
   * Closes `env` and opens the same data again (durable kinds only); `afterClose` runs in
   * between, `onNotice` hears the reopened memledger's notices.
   */
  reopen(env: ErasureEnv, options?: ReopenOptions): Promise<ErasureEnv>;
  /** The same data without keys, for plain-text writes (close it before opening sealed again). */
  openPlain(env: { readonly files: ErasureFiles; readonly memoryId: string }): Promise<{
    readonly store: MemoryStore;
    readonly log: EventLog;
  }>;
}

/** Registers the three kinds with `beforeAll`/`afterAll` for their folder and server. */
export function erasureStoreKinds(): ErasureStoreKind[] {
  let root = '';
  let server: EsdbTestServer | undefined;
  let n = 0;
  const masterKey: MasterKey = masterKeyFromBytes(randomBytes(32));
  // The in-memory store lives as long as the test that opened it: kept here for openPlain.
  const inMemory = new Map<string, MemoryStore>();
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'memledger-erasure-'));
    server = await startEsdbTestServer();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const fresh = () => {
    const dir = join(root, `run-${++n}`);
    mkdirSync(dir, { recursive: true });
    return { dir, memoryId: `erasure-${n}` };
  };
  const keyStore = (files: ErasureFiles, create: boolean) =>
    openSqliteKeyStore(files.keyStore, { masterKey, create });
  const assemble = async (
    inner: MemoryStore,
    files: ErasureFiles,
    memoryId: string,
    onNotice?: (notice: string) => void,
  ): Promise<ErasureEnv> => {
    const keys = keyStore(files, true);
    const store = sealedStore(inner, keys);
    const memledger = openMemledger({
      store,
      ...(files.readModels ? { readModels: files.readModels } : {}),
      ...(onNotice ? { onNotice } : {}),
    });
    const memory = await memledger.memory(memoryId);
    return {
      memledger,
      memory,
      store,
      log: store.log(memoryId),
      keys,
      memoryId,
      files,
      close: () => memledger.close(),
    };
  };

  const sqliteFiles = (dir: string): ErasureFiles => ({
    log: join(dir, 'memledger.db'),
    keyStore: join(dir, 'memledger.db.keys'),
  });
  const esdbFiles = (dir: string): ErasureFiles => ({
    readModels: join(dir, 'read-models.db'),
    idIndex: join(dir, 'esdb-index.db'),
    keyStore: join(dir, 'eventstoredb.keys'),
  });
  const openEsdb = (files: ErasureFiles) =>
    openEventStoreDbStore(
      { connectionString: server!.connectionString },
      { idIndex: files.idIndex! },
    );

  return [
    {
      name: 'in-memory (sealed)',
      durable: false,
      async open() {
        const { dir, memoryId } = fresh();
        const files: ErasureFiles = { keyStore: join(dir, 'in-memory.keys') };
        const inner = openInMemoryStore();
        inMemory.set(memoryId, inner);
        return assemble(inner, files, memoryId);
      },
      reopen() {
        throw new Error('the in-memory store cannot be reopened');
      },
      async openPlain({ memoryId }) {
        const store = inMemory.get(memoryId) ?? openInMemoryStore();
        inMemory.set(memoryId, store);
        // Closing the in-memory store would drop its data: the caller's close is a no-op.
        return { store: { ...store, close: async () => undefined }, log: store.log(memoryId) };
      },
    },
    {
      name: 'SQLite file (sealed)',
      durable: true,
      async open() {
        const { dir, memoryId } = fresh();
        const files = sqliteFiles(dir);
        return assemble(openSqliteStore({ path: files.log!, pollMs: 20 }), files, memoryId);
      },
      async reopen(env, options = {}) {
        await env.close();
        options.afterClose?.();
        return assemble(
          openSqliteStore({ path: env.files.log!, pollMs: 20 }),
          env.files,
          env.memoryId,
          options.onNotice,
        );
      },
      async openPlain({ files, memoryId }) {
        const store = openSqliteStore({ path: files.log!, pollMs: 20 });
        return { store, log: store.log(memoryId) };
      },
    },
    {
      name: 'EventStoreDB (in-process test server, local read-model file)',
      durable: true,
      async open() {
        const { dir, memoryId } = fresh();
        const files = esdbFiles(dir);
        return assemble(openEsdb(files), files, memoryId);
      },
      async reopen(env, options = {}) {
        await env.close();
        options.afterClose?.();
        return assemble(openEsdb(env.files), env.files, env.memoryId, options.onNotice);
      },
      async openPlain({ files, memoryId }) {
        const store = openEsdb(files);
        return { store, log: store.log(memoryId) };
      },
    },
  ];
}

/**
 * Opens the kind's store on fresh data, writes `plain` through it without keys first (content in
 * plain text, as before keys were on), then opens it sealed.
 */
export async function openWithPlainContent(
  kind: ErasureStoreKind,
  write: (log: EventLog) => Promise<void>,
): Promise<ErasureEnv> {
  // Open once sealed to get fresh files and ids, then write plain text beside it.
  const probe = await kind.open();
  const { files, memoryId } = probe;
  if (!kind.durable) {
    const plain = await kind.openPlain({ files, memoryId });
    await write(plain.log);
    // The sealed env shares the in-memory store: its read models catch up on the next query.
    return probe;
  }
  await probe.close();
  const plain = await kind.openPlain({ files, memoryId });
  await write(plain.log);
  await plain.store.close();
  return kind.reopen({ ...probe, close: async () => undefined });
}

/** A canary: one search token no other text holds, e.g. `canary3f9a0c1d2e4b`. */
export function canary(): string {
  return `canary${randomBytes(6).toString('hex')}`;
}
