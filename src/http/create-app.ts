/**
 * `createApp(config)` builds the Nest application (API, event stream, OpenAPI, web page) without
 * listening; `startServer(config)` also listens and says where. The CLI's `serve` and
 * `src/main.ts` call `startServer`; tests call `createApp` and drive it with supertest.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import type { Memledger } from '../memory/index.js';
import { MEMLEDGER } from '../nest.js';
import { AppLogger } from './app-logger.js';
import { appMetrics, startTracing, type AppTracing } from './app-telemetry.js';
import { exitOnSignals } from './graceful-shutdown.js';
import { MemoryError } from '../core/index.js';
import { isLoopback } from '../access/index.js';
import { HttpAccess } from './http-access.js';
import { type HttpConfig, type ResolvedHttpConfig, resolveHttpConfig } from './http-config.js';
import { HttpApiModule } from './http-api.module.js';
import { InFlightRequests } from './in-flight-requests.js';
import { TimedExpressAdapter } from './node-server.js';
import { setupOpenApi } from './openapi.js';
import { requestTelemetry } from './request-telemetry.js';

/** The built memledger/verify modules (`dist/verify`), which the page imports from `/verify/`. */
const VERIFY_DIR = fileURLToPath(new URL('../../dist/verify', import.meta.url));

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** The application, ready to listen (or to be driven by supertest after `init()`). */
export async function createApp(config: HttpConfig = {}): Promise<NestExpressApplication> {
  const resolved = resolveHttpConfig(config);
  // The process's meter provider (read by /metrics) exists before any instrument records.
  appMetrics();
  const logger =
    resolved.logger === false ? false : new AppLogger(resolved.logFormat, resolved.logger);
  // The adapter's server carries the timeouts, answers refused requests as JSON, and closes
  // open event streams on `close()`.
  const app = await NestFactory.create<NestExpressApplication>(
    HttpApiModule.forRoot(resolved),
    new TimedExpressAdapter(resolved),
    { bodyParser: false, logger },
  );
  // Which framework answers is nobody's business but ours.
  app.disable('x-powered-by');
  // First, so the request's span and ids cover body parsing and every route.
  app.use(requestTelemetry(new Logger('memledger-http'), app.get(InFlightRequests)));
  app.useBodyParser('json', { limit: resolved.bodyLimit });
  app.useStaticAssets(resolved.webDir, { index: 'index.html', maxAge: 0 });
  // The page verifies proofs with the very memledger/verify files the package exports.
  app.useStaticAssets(VERIFY_DIR, { prefix: '/verify/', index: false, maxAge: 0 });
  setupOpenApi(app, version);
  return app;
}

/** A listening server. */
export interface RunningServer {
  /** The application. */
  readonly app: NestExpressApplication;
  /** Where it listens, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The memledger it serves; `description` names the store. */
  readonly memledger: Memledger;
  /**
   * How callers authenticate, in a line for the operator: the ways configured, or that none is
   * and so the server listens on loopback only (or, with `insecure`, beyond it: a warning).
   */
  readonly authentication: string;
  /**
   * Stops listening, ends open streams, stops the projections, closes the store and flushes
   * traces; once, however often it is called.
   */
  close(): Promise<void>;
}

let tracing: Promise<AppTracing | undefined> | undefined;

/** The process's tracing, started from the environment on the first server (once). */
function processTracing(): Promise<AppTracing | undefined> {
  tracing ??= startTracing(process.env);
  return tracing;
}

/** Creates the application and listens on `config.host`:`config.port` (127.0.0.1:3000). */
export async function startServer(config: HttpConfig = {}): Promise<RunningServer> {
  const resolved = resolveHttpConfig(config);
  const traces = await processTracing();
  const app = await createApp(config);
  await app.init();
  let authentication: string;
  try {
    authentication = checkExposure(app.get(HttpAccess), resolved);
  } catch (error) {
    await app.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  // SIGTERM/SIGINT: stop accepting, finish what is under way, close the store, exit 0.
  const detach = exitOnSignals({
    app,
    timeoutMs: resolved.shutdownTimeoutMs,
    close: () => close(),
  });
  const close = () => {
    closing ??= (async () => {
      detach();
      await app.close();
      await traces?.shutdown();
    })();
    return closing;
  };
  // Listening on the server itself (not app.listen) so a busy port is one clear error for the
  // caller to report, not also a stack in Nest's log.
  const httpServer = app.getHttpServer();
  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(resolved.port, resolved.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await close();
    throw listenError(error, resolved.host, resolved.port);
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  return {
    app,
    url: `http://${host}:${port}`,
    memledger: app.get<Memledger>(MEMLEDGER),
    authentication,
    close,
  };
}

/**
 * The safe default: with nothing that authenticates callers, the server listens on loopback only;
 * beyond it only with `access.insecure` (`--insecure`, `MEMLEDGER_INSECURE=1`), and it warns.
 * Answers the line that says how callers authenticate.
 */
function checkExposure(access: HttpAccess, config: ResolvedHttpConfig): string {
  const { authenticator } = access;
  if (authenticator.required) return `authentication: ${authenticator.describe()}`;
  if (isLoopback(config.host)) {
    const line =
      'authentication: none configured, so listening on loopback only (grant a key with `memledger access create`, or set MEMLEDGER_API_TOKEN or MEMLEDGER_JWT_*)';
    if (config.logger !== false) new Logger('memledger-access').warn(line);
    return line;
  }
  if (config.access.insecure !== true) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Refusing to listen on ${config.host} without authentication: grant a key (memledger access create), set MEMLEDGER_API_TOKEN or MEMLEDGER_JWT_*, listen on 127.0.0.1, or pass --insecure (MEMLEDGER_INSECURE=1).`,
      {
        issues: [
          {
            path: 'host',
            message: 'must be a loopback address while nothing authenticates callers',
          },
        ],
      },
    );
  }
  const line = `authentication: NONE, and listening on ${config.host} (--insecure): anyone who reaches this address may read, write and erase every memory`;
  if (config.logger !== false) new Logger('memledger-access').warn(line);
  return line;
}

/** A port already taken says which port and how to choose another, in one line. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  const why = code === 'EADDRINUSE' ? 'is already in use' : 'needs privileges this user lacks';
  return Object.assign(
    new Error(
      `Port ${port} on ${host} ${why}; set PORT (or memledger serve --port) to another port, or 0 for any free one.`,
      { cause: error },
    ),
    { code },
  );
}
