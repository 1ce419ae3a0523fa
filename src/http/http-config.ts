/**
 * Configuration of the HTTP application: where it listens, which store it opens, the optional
 * API token and the request body limit. `httpConfigFromEnv()` reads it from the environment.
 */
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '@nestjs/common';
import { MemoryError } from '../core/index.js';
import type { MemoryModuleOptions } from '../nest.js';
import { storeConfigFromEnv, type StoreConfig } from '../store/open-store.js';

/** The largest request body accepted, in bytes (5 MiB). Larger bodies answer 413. */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/** Configuration of {@link createApp} and {@link startServer}. */
export interface HttpConfig {
  /** Which event store to open. @defaultValue SQLite at `./data/memledger.db` (see `storeConfigFromEnv`) */
  readonly store?: StoreConfig;
  /** The interface to listen on. @defaultValue '127.0.0.1' */
  readonly host?: string;
  /** The port to listen on; 0 picks a free one. @defaultValue 3000 */
  readonly port?: number;
  /** When set, every `/api` route needs `Authorization: Bearer <apiToken>`. @defaultValue none */
  readonly apiToken?: string;
  /** The largest request body accepted, in bytes. @defaultValue 5 MiB */
  readonly bodyLimit?: number;
  /** The folder of the web page served at `/`. @defaultValue the package's `web/` */
  readonly webDir?: string;
  /** Options of the memory module besides the store (recall limit, read models, retention...). */
  readonly memory?: Omit<MemoryModuleOptions, 'store'>;
  /** Nest's log levels, or false for silence. @defaultValue ['warn', 'error'] */
  readonly logger?: false | LogLevel[];
}

/** {@link HttpConfig} with every default applied. */
export interface ResolvedHttpConfig {
  readonly store: StoreConfig;
  readonly host: string;
  readonly port: number;
  readonly apiToken: string | undefined;
  readonly bodyLimit: number;
  readonly webDir: string;
  readonly memory: Omit<MemoryModuleOptions, 'store'>;
  readonly logger: false | LogLevel[];
}

/** DI token of the {@link ResolvedHttpConfig}. */
export const HTTP_CONFIG = Symbol('MEMLEDGER_HTTP_CONFIG');

/** The package's `web/` folder (two levels above `src/http` or `dist/http`). */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web', import.meta.url));

/** Applies the defaults. */
export function resolveHttpConfig(config: HttpConfig = {}): ResolvedHttpConfig {
  return {
    store: config.store ?? storeConfigFromEnv({}),
    host: config.host ?? '127.0.0.1',
    port: config.port ?? 3000,
    apiToken: config.apiToken === '' ? undefined : config.apiToken,
    bodyLimit: config.bodyLimit ?? DEFAULT_BODY_LIMIT,
    webDir: config.webDir ?? DEFAULT_WEB_DIR,
    memory: config.memory ?? {},
    logger: config.logger ?? ['warn', 'error'],
  };
}

/**
 * Where the read models live when the store cannot hold them (EventStoreDB): the file
 * `MEMLEDGER_READ_MODELS`, else `./data/read-models.db`. The SQLite store keeps them in its own
 * file, so this is ignored there. Derived data: deleting the file costs only a rebuild.
 */
export function readModelsFromEnv(env: NodeJS.ProcessEnv): string {
  return env.MEMLEDGER_READ_MODELS?.trim() || './data/read-models.db';
}

/**
 * The configuration an environment names: `HOST`, `PORT`, `MEMLEDGER_API_TOKEN`, the store
 * (`EVENTSTORE_URL` for EventStoreDB/KurrentDB, else SQLite at `MEMLEDGER_DB`) and
 * `MEMLEDGER_READ_MODELS`.
 */
export function httpConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HttpConfig {
  const port = env.PORT?.trim();
  if (port && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid PORT ${JSON.stringify(port)}: must be 0 to 65535.`,
      {
        issues: [{ path: 'PORT', message: 'must be an integer from 0 to 65535' }],
      },
    );
  }
  const token = env.MEMLEDGER_API_TOKEN?.trim();
  const store = storeConfigFromEnv(env);
  return {
    store,
    memory: { readModels: readModelsFromEnv(env) },
    ...(env.HOST?.trim() ? { host: env.HOST.trim() } : {}),
    ...(port ? { port: Number(port) } : {}),
    ...(token ? { apiToken: token } : {}),
  };
}
