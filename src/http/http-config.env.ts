/**
 * The HTTP application's configuration read from `MEMLEDGER_*` environment variables
 * (docs/operations.md): `httpConfigFromEnv()` without any file access, `appConfigFromEnv()`
 * with the key files it names read.
 */
import type { LogLevel } from '@nestjs/common';
import { MemoryError } from '../core/index.js';
import { embeddingsOptionsFromEnv } from '../memory/index.js';
import { storeConfigFromEnv } from '../store/open-store.js';
import { logIdentityFromEnv } from '../tlog/index.js';
import { levelsFrom, type LogFormat } from './app-logger.js';
import type { AccessConfig, HttpConfig } from './http-config.js';

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
