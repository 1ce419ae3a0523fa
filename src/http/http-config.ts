/**
 * Configuration of the HTTP application: where it listens, which store it opens, the optional
 * API token and the request body limit. `httpConfigFromEnv()` reads it from the environment.
 */
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '@nestjs/common';
import { MemoryError } from '../core/index.js';
import type { MemoryModuleOptions } from '../nest.js';
import { storeConfigFromEnv, type StoreConfig } from '../store/open-store.js';
import { HEARTBEAT_MS } from './sse-session.js';

/** The largest request body accepted, in bytes (5 MiB). Larger bodies answer 413. */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/** Bytes that may wait for one event-stream client before its stream ends: 4 MiB. */
export const DEFAULT_SSE_BUFFER_BYTES = 4 * 1024 * 1024;

/** How long a client may take to send a request's headers: 10 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** How long a client may take to send a whole request, headers and body: 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long a connection may stay without any traffic while a request is open: 60 s (the event
 * stream's heartbeat every 15 s keeps a reading client's stream alive).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

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
  /**
   * Milliseconds a client may take to send the request headers (then 408); capped at
   * `requestTimeoutMs`. 0 disables it. @defaultValue 10 000
   */
  readonly headersTimeoutMs?: number;
  /**
   * Milliseconds a client may take to send the whole request, body included (then 408). 0
   * disables it. @defaultValue 30 000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Milliseconds a connection may go without traffic in either direction while a request is open
   * (then 408 if nothing was answered yet, else the connection is closed). 0 disables it.
   * @defaultValue 60 000
   */
  readonly idleTimeoutMs?: number;
  /**
   * Bytes that may wait for one event-stream client that reads slower than events arrive; past
   * it the stream ends with a comment telling the client to reconnect with `Last-Event-ID`.
   * @defaultValue 4 MiB
   */
  readonly sseBufferBytes?: number;
  /**
   * How often an idle event stream sends a comment (so proxies keep it open), and how long a
   * stream that was ended may wait for a client that does not read before its socket is cut.
   * @defaultValue 15000
   */
  readonly sseHeartbeatMs?: number;
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
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly sseBufferBytes: number;
  readonly sseHeartbeatMs: number;
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
    headersTimeoutMs: config.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    sseBufferBytes: config.sseBufferBytes ?? DEFAULT_SSE_BUFFER_BYTES,
    sseHeartbeatMs: config.sseHeartbeatMs ?? HEARTBEAT_MS,
  };
}

/** The non-negative integer an environment variable names, or undefined when it is unset. */
function envInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (!/^\d{1,15}$/.test(text)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name} ${JSON.stringify(text)}: must be an integer of 0 or more.`,
      { issues: [{ path: name, message: 'must be an integer of 0 or more' }] },
    );
  }
  return Number(text);
}

/** The optional settings read from `MEMLEDGER_*` integers, only those that are set. */
function integersFromEnv(env: NodeJS.ProcessEnv): Partial<HttpConfig> {
  const named = {
    headersTimeoutMs: envInteger(env, 'MEMLEDGER_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: envInteger(env, 'MEMLEDGER_REQUEST_TIMEOUT_MS'),
    idleTimeoutMs: envInteger(env, 'MEMLEDGER_IDLE_TIMEOUT_MS'),
    sseBufferBytes: envInteger(env, 'MEMLEDGER_SSE_BUFFER_BYTES'),
  };
  return Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
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
 * `MEMLEDGER_READ_MODELS`, and the timeouts `MEMLEDGER_HEADERS_TIMEOUT_MS`,
 * `MEMLEDGER_REQUEST_TIMEOUT_MS` and `MEMLEDGER_IDLE_TIMEOUT_MS`, and the event stream's
 * `MEMLEDGER_SSE_BUFFER_BYTES`.
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
    ...integersFromEnv(env),
  };
}
