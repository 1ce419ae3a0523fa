/**
 * Configuration of the HTTP application: where it listens, which store it opens, the optional
 * API token and the request body limit. `httpConfigFromEnv()` reads it from the environment.
 */
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '@nestjs/common';
import type { GrantStore, JwtConfig } from '../access/index.js';
import { MemoryError } from '../core/index.js';
import { embeddingsOptionsFromEnv } from '../memory/index.js';
import type { MemoryModuleOptions } from '../nest.js';
import { storeConfigFromEnv, type StoreConfig } from '../store/open-store.js';
import { logIdentityFromEnv } from '../tlog/index.js';
import { levelsFrom, type LogFormat } from './app-logger.js';
import { HEARTBEAT_MS } from './sse-session.js';

/** The largest request body accepted, in bytes (5 MiB). Larger bodies answer 413. */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Bytes that may wait in memory for one event-stream client before the stream stops reading and
 * writing for it until its socket drains: 64 KiB (the kernel's socket buffers hold more).
 */
export const DEFAULT_SSE_BUFFER_BYTES = 64 * 1024;

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
  /**
   * A shared token: an all-rights key whose events are recorded under the principal `token`.
   * @defaultValue none
   */
  readonly apiToken?: string;
  /** Access keys, JWTs and the safe defaults (docs/access.md). */
  readonly access?: AccessConfig;
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
   * Bytes that may wait in memory for one event-stream client that reads slower than events
   * arrive; past them the stream reads and writes nothing more for it until its socket drains,
   * then catches up from the log. A client that takes nothing for `sseHeartbeatMs` meanwhile is
   * ended with a comment telling it to reconnect with `Last-Event-ID`.
   * @defaultValue 64 KiB
   */
  readonly sseBufferBytes?: number;
  /**
   * How often an idle event stream sends a comment (so proxies keep it open), how long a client
   * may take nothing while events wait for it before its stream ends, and how long a stream
   * that was ended may wait for a client that does not read before its socket is cut.
   * @defaultValue 15000
   */
  readonly sseHeartbeatMs?: number;
  /**
   * Log lines as JSON objects (for collectors) or readable coloured lines (for a terminal).
   * @defaultValue 'json'
   */
  readonly logFormat?: LogFormat;
  /**
   * Milliseconds `/health/ready` gives the store to answer and the read models to catch up.
   * @defaultValue 5000
   */
  readonly readyTimeoutMs?: number;
  /**
   * Milliseconds a SIGTERM/SIGINT shutdown may take (in-flight requests, event streams, the
   * store, telemetry) before the process exits anyway, with code 1. @defaultValue 10000
   */
  readonly shutdownTimeoutMs?: number;
}

/** How callers authenticate, besides the API token. */
export interface AccessConfig {
  /** Accept JWTs from this identity provider. @defaultValue none */
  readonly jwt?: JwtConfig;
  /**
   * Listen on a non-loopback address although nothing authenticates callers (no token, no JWT
   * provider, no key granted): refused without it. @defaultValue false
   */
  readonly insecure?: boolean;
  /**
   * The grant store to use, opened by the caller (who closes it). @defaultValue the store's
   * own: its SQLite file, its EventStoreDB node, or a private in-memory one
   */
  readonly grants?: GrantStore;
  /** How often the SQLite grant store looks for other processes' changes. @defaultValue 250 */
  readonly grantsPollMs?: number;
}

/** {@link HttpConfig} with every default applied. */
export interface ResolvedHttpConfig {
  readonly store: StoreConfig;
  readonly host: string;
  readonly port: number;
  readonly apiToken: string | undefined;
  readonly access: AccessConfig;
  readonly bodyLimit: number;
  readonly webDir: string;
  readonly memory: Omit<MemoryModuleOptions, 'store'>;
  readonly logger: false | LogLevel[];
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly sseBufferBytes: number;
  readonly sseHeartbeatMs: number;
  readonly logFormat: LogFormat;
  readonly readyTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
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
    access: config.access ?? {},
    bodyLimit: config.bodyLimit ?? DEFAULT_BODY_LIMIT,
    webDir: config.webDir ?? DEFAULT_WEB_DIR,
    memory: config.memory ?? {},
    logger: config.logger ?? ['warn', 'error'],
    headersTimeoutMs: config.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    sseBufferBytes: config.sseBufferBytes ?? DEFAULT_SSE_BUFFER_BYTES,
    sseHeartbeatMs: config.sseHeartbeatMs ?? HEARTBEAT_MS,
    logFormat: config.logFormat ?? 'json',
    readyTimeoutMs: config.readyTimeoutMs ?? 5000,
    shutdownTimeoutMs: config.shutdownTimeoutMs ?? 10_000,
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
    readyTimeoutMs: envInteger(env, 'MEMLEDGER_READY_TIMEOUT_MS'),
    shutdownTimeoutMs: envInteger(env, 'MEMLEDGER_SHUTDOWN_TIMEOUT_MS'),
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

/** The names Nest gives its log levels, each with the levels above it. */
const LOG_LEVELS: readonly LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];

/** `MEMLEDGER_LOG_LEVEL` (the lowest level written) and `MEMLEDGER_LOG_FORMAT` (json, pretty). */
function loggingFromEnv(env: NodeJS.ProcessEnv): Partial<HttpConfig> {
  const level = env.MEMLEDGER_LOG_LEVEL?.trim().toLowerCase();
  const format = env.MEMLEDGER_LOG_FORMAT?.trim().toLowerCase();
  const invalid = (name: string, value: string, allowed: readonly string[]) =>
    new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name} ${JSON.stringify(value)}: must be one of ${allowed.join(', ')}.`,
      { issues: [{ path: name, message: `must be one of ${allowed.join(', ')}` }] },
    );
  if (level && !LOG_LEVELS.includes(level as LogLevel)) {
    throw invalid('MEMLEDGER_LOG_LEVEL', level, LOG_LEVELS);
  }
  if (format && format !== 'json' && format !== 'pretty') {
    throw invalid('MEMLEDGER_LOG_FORMAT', format, ['json', 'pretty']);
  }
  return {
    ...(level ? { logger: levelsFrom(level as LogLevel) } : {}),
    ...(format ? { logFormat: format as LogFormat } : {}),
  };
}

/**
 * JWTs from an identity provider: `MEMLEDGER_JWT_JWKS_URL`, `MEMLEDGER_JWT_ISSUER` and
 * `MEMLEDGER_JWT_AUDIENCE` (all three, or none), `MEMLEDGER_JWT_CLAIM` (default `memledger`);
 * and `MEMLEDGER_INSECURE=1`, which lets a server without authentication listen beyond loopback.
 */
export function accessConfigFromEnv(env: NodeJS.ProcessEnv): AccessConfig {
  const names = ['MEMLEDGER_JWT_JWKS_URL', 'MEMLEDGER_JWT_ISSUER', 'MEMLEDGER_JWT_AUDIENCE'];
  const [jwksUrl, issuer, audience] = names.map((name) => env[name]?.trim() || undefined);
  const set = [jwksUrl, issuer, audience].filter((value) => value !== undefined).length;
  if (set > 0 && set < 3) {
    const missing = names.filter((name) => !env[name]?.trim());
    throw new MemoryError(
      'VALIDATION_FAILED',
      `JWT settings are incomplete: ${missing.join(', ')} must be set too.`,
      {
        issues: missing.map((path) => ({
          path,
          message: 'must be set with the other JWT settings',
        })),
      },
    );
  }
  const claim = env.MEMLEDGER_JWT_CLAIM?.trim();
  const insecure = ['1', 'true'].includes(env.MEMLEDGER_INSECURE?.trim().toLowerCase() ?? '');
  return {
    ...(jwksUrl && issuer && audience
      ? { jwt: { jwksUrl, issuer, audience, ...(claim ? { claim } : {}) } }
      : {}),
    ...(insecure ? { insecure } : {}),
  };
}

/**
 * The configuration an environment names: `HOST`, `PORT`, `MEMLEDGER_API_TOKEN`, the JWT settings
 * and `MEMLEDGER_INSECURE` ({@link accessConfigFromEnv}), the store
 * (`EVENTSTORE_URL` for EventStoreDB/KurrentDB, else SQLite at `MEMLEDGER_DB`) and
 * `MEMLEDGER_READ_MODELS`, and the timeouts `MEMLEDGER_HEADERS_TIMEOUT_MS`,
 * `MEMLEDGER_REQUEST_TIMEOUT_MS` and `MEMLEDGER_IDLE_TIMEOUT_MS`, the event stream's
 * `MEMLEDGER_SSE_BUFFER_BYTES`, and operations: `MEMLEDGER_LOG_LEVEL`, `MEMLEDGER_LOG_FORMAT`,
 * `MEMLEDGER_TRACE_QUERIES`, `MEMLEDGER_READY_TIMEOUT_MS`, `MEMLEDGER_SHUTDOWN_TIMEOUT_MS`;
 * semantic recall: `MEMLEDGER_EMBEDDINGS_*` (docs/semantic-recall.md).
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
  const access = accessConfigFromEnv(env);
  const store = storeConfigFromEnv(env);
  const captureQueries = env.MEMLEDGER_TRACE_QUERIES?.trim().toLowerCase() === 'true';
  const embeddings = embeddingsOptionsFromEnv(env);
  return {
    store,
    memory: {
      readModels: readModelsFromEnv(env),
      ...(captureQueries ? { telemetry: { captureQueries } } : {}),
      ...(embeddings ? { embeddings } : {}),
    },
    ...loggingFromEnv(env),
    ...(env.HOST?.trim() ? { host: env.HOST.trim() } : {}),
    ...(port ? { port: Number(port) } : {}),
    ...(token ? { apiToken: token } : {}),
    ...(Object.keys(access).length > 0 ? { access } : {}),
    ...integersFromEnv(env),
  };
}

/**
 * {@link httpConfigFromEnv} with the verifiable log's identity too (`MEMLEDGER_LOG_KEY`,
 * `MEMLEDGER_LOG_NAME`, `MEMLEDGER_WITNESSES`): a key file set but bad, a name that contradicts
 * the key or a bad witness entry fails here, before anything listens.
 */
export async function appConfigFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<HttpConfig> {
  const config = httpConfigFromEnv(env);
  return { ...config, memory: { ...config.memory, log: await logIdentityFromEnv(env) } };
}
