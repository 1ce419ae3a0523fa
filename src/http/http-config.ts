/**
 * Configuration of the HTTP application: where it listens, which store it opens, the optional
 * API token and the request body limit, and its defaults (`http-config.env.ts` reads it from the
 * environment).
 */
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '@nestjs/common';
import type { GrantStore, JwtConfig } from '../access/index.js';
import type { MemoryModuleOptions } from '../nest.js';
import { storeConfigFromEnv, type StoreConfig } from '../store/open-store.js';
import type { LogFormat } from './app-logger.js';
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
