/**
 * `createApp(config)` builds the Nest application (API, event stream, OpenAPI, web page) without
 * listening; `startServer(config)` also listens and says where. The CLI's `serve` and
 * `src/main.ts` call `startServer`; tests call `createApp` and drive it with supertest.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import type { Memledger } from '../memory/index.js';
import { MEMLEDGER } from '../nest.js';
import { type HttpConfig, resolveHttpConfig } from './http-config.js';
import { HttpApiModule } from './http-api.module.js';
import { TimedExpressAdapter } from './node-server.js';
import { setupOpenApi } from './openapi.js';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** The application, ready to listen (or to be driven by supertest after `init()`). */
export async function createApp(config: HttpConfig = {}): Promise<NestExpressApplication> {
  const resolved = resolveHttpConfig(config);
  // The adapter's server carries the timeouts, answers refused requests as JSON, and closes
  // open event streams on `close()`.
  const app = await NestFactory.create<NestExpressApplication>(
    HttpApiModule.forRoot(resolved),
    new TimedExpressAdapter(resolved),
    { bodyParser: false, logger: resolved.logger },
  );
  app.useBodyParser('json', { limit: resolved.bodyLimit });
  app.useStaticAssets(resolved.webDir, { index: 'index.html', maxAge: 0 });
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
  /** Stops listening, ends open streams, stops the projections and closes the store. */
  close(): Promise<void>;
}

/** Creates the application and listens on `config.host`:`config.port` (127.0.0.1:3000). */
export async function startServer(config: HttpConfig = {}): Promise<RunningServer> {
  const resolved = resolveHttpConfig(config);
  const app = await createApp(config);
  // SIGINT/SIGTERM close the app, so open memories close and the store closes.
  app.enableShutdownHooks();
  await app.init();
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
    await app.close();
    throw listenError(error, resolved.host, resolved.port);
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  return {
    app,
    url: `http://${host}:${port}`,
    memledger: app.get<Memledger>(MEMLEDGER),
    close: () => app.close(),
  };
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
