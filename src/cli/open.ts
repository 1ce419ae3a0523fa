/**
 * Opening and closing what a command works on: the store the global options name, one memory's
 * log, or the framework-free facade over it. Every command closes what it opened, so the process
 * ends on its own and `process.exitCode` decides the exit status.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { MemoryError } from '../core/index.js';
import type { EventLog, MemoryStore } from '../store/event-log.port.js';
import {
  eventStoreDbConfig,
  keysFromEnv,
  openStore,
  type StoreConfig,
  type StoreKind,
} from '../store/open-store.js';
import {
  embeddingsOptionsFromEnv,
  openMemledger,
  type MemledgerOptions,
  type MemoryHandle,
} from '../memory/index.js';
import { openGrantStore, type GrantStore } from '../access/index.js';

/** The global options every command sees (see `memledger --help`). */
export interface GlobalOptions {
  /** SQLite file. @defaultValue `MEMLEDGER_DB`, else `./data/memledger.db` */
  readonly db: string;
  /** EventStoreDB/KurrentDB connection string. @defaultValue `EVENTSTORE_URL` */
  readonly eventstore?: string;
  /** The memory to work on. @defaultValue `default` */
  readonly memory: string;
  /** Read-model file of a store that cannot hold them. @defaultValue `./data/read-models.db` */
  readonly readModels: string;
  /** A running server to work through instead of the store. @defaultValue `MEMLEDGER_SERVER` */
  readonly server?: string;
  /** The access key (or JWT, or token) to authenticate with. @defaultValue `MEMLEDGER_KEY` */
  readonly key?: string;
}

/** The global options as seen from a (sub)command. */
export function globalOptionsOf(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * The store the global options name. `--eventstore` wins over `--db`, with one refinement:
 * a value typed on the command line beats one inherited from the environment, so
 * `--db x.db` still means SQLite when `EVENTSTORE_URL` happens to be set.
 */
export function storeConfigOf(command: Command): StoreConfig {
  const { db, eventstore } = globalOptionsOf(command);
  const url = eventstore?.trim();
  const dbTyped = command.getOptionValueSourceWithGlobals('db') === 'cli';
  const urlTyped = command.getOptionValueSourceWithGlobals('eventstore') === 'cli';
  // The same id index file, limits and key store as the application, so a command reads only
  // what is new and opens sealed content.
  const store: StoreKind =
    url && (urlTyped || !dbTyped) ? eventStoreDbConfig(url) : { kind: 'sqlite', path: db };
  const keys = keysFromEnv(store);
  return keys ? { ...store, keys } : store;
}

/** Options of {@link withStore}. */
export interface OpenOptions {
  /**
   * Refuse a SQLite file that does not exist yet (reading commands), instead of creating an
   * empty database there.
   * @defaultValue false
   */
  readonly mustExist?: boolean;
  /**
   * Refuse a memory that holds no events (a mistyped `--memory`), naming the memories that
   * do: a command that reads one memory has nothing useful to do with an empty one.
   * @defaultValue false
   */
  readonly mustHaveEvents?: boolean;
}

/**
 * Throws `VALIDATION_FAILED` naming `--memory` when the memory holds no events, with the
 * memories that hold some: a memory exists only by its events, so an empty one is most often a
 * typo.
 */
export async function requireEvents(store: MemoryStore, memoryId: string): Promise<void> {
  if ((await store.log(memoryId).lastSeq()) !== null) return;
  const known = await store.memoryIds();
  const listed = known.length === 0 ? 'none' : known.slice(0, 20).join(', ');
  const more = known.length > 20 ? ` and ${known.length - 20} more` : '';
  const where = store.description.split(', ')[0];
  throw new MemoryError(
    'VALIDATION_FAILED',
    `Memory ${JSON.stringify(memoryId)} has no events in ${where}; memories with events: ${listed}${more}.`,
    { issues: [{ path: '--memory', message: 'names no memory that holds events' }] },
  );
}

/** Opens the store, runs `work`, and closes the store whatever happens. */
export async function withStore<T>(
  command: Command,
  work: (store: MemoryStore) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  if (globalOptionsOf(command).server?.trim()) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `memledger ${command.name()} works on the store itself, not through --server; through a server use audit, export, erase or access.`,
      { issues: [{ path: '--server', message: `not supported by ${command.name()}` }] },
    );
  }
  const config = storeConfigOf(command);
  if (options.mustExist && config.kind === 'sqlite' && !existsSync(config.path)) {
    throw new MemoryError(
      'STORE_UNAVAILABLE',
      `SQLite file ${config.path} does not exist; pass --db or set MEMLEDGER_DB.`,
      { details: { path: config.path } },
    );
  }
  const store = await openStore(config);
  try {
    if (options.mustHaveEvents) await requireEvents(store, globalOptionsOf(command).memory);
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Opens the log of the memory `--memory` names, runs `work`, and closes the store. */
export function withLog<T>(
  command: Command,
  work: (log: EventLog, store: MemoryStore) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  return withStore(
    command,
    (store) => work(store.log(globalOptionsOf(command).memory), store),
    options,
  );
}

/** Opens the memory `--memory` names through the facade (its read models), runs `work`, closes. */
export async function withMemory<T>(
  command: Command,
  work: (memory: MemoryHandle) => Promise<T>,
): Promise<T> {
  return withStore(
    command,
    async (store) => {
      const { memory, readModels } = globalOptionsOf(command);
      const memledger = openMemledger({ store, closeStore: false, readModels, ...cliEmbeddings() });
      try {
        return await work(await memledger.memory(memory));
      } finally {
        await memledger.close();
      }
    },
    { mustExist: true, mustHaveEvents: true },
  );
}

/**
 * The grant store of the store the global options name: its SQLite file's (created when
 * missing, so keys can exist before a server first starts) or its EventStoreDB node's.
 */
export function openGrantsOf(command: Command): Promise<GrantStore> {
  const store = storeConfigOf(command);
  return openGrantStore(
    store.kind === 'eventstoredb'
      ? { kind: 'eventstoredb', connectionString: store.connectionString }
      : { kind: 'sqlite', path: store.kind === 'sqlite' ? store.path : ':memory:' },
  );
}

/**
 * The embedder `MEMLEDGER_EMBEDDINGS_*` names, for a short command: a recall or search embeds
 * what it needs itself, so no background follower outlives it.
 */
export function cliEmbeddings(follow = false): Pick<MemledgerOptions, 'embeddings'> {
  const embeddings = embeddingsOptionsFromEnv(process.env);
  return embeddings ? { embeddings: { ...embeddings, follow } } : {};
}
