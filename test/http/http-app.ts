/** A real Nest application on a temp SQLite file, for the HTTP e2e specs. */
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { StoreConfig } from '../../src/store/open-store.js';
import {
  createApp,
  startServer,
  type HttpConfig,
  type RunningServer,
} from '../../src/http/index.js';

/** An initialized application and the temp folder it writes to. */
export interface TestApp {
  readonly app: NestExpressApplication;
  /** The Node HTTP server, for supertest. */
  readonly server: Server;
  readonly dbPath: string;
  close(): Promise<void>;
}

function tempDb(): { dir: string; dbPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-http-'));
  return { dir, dbPath: join(dir, 'memledger.db') };
}

/** How the test store is opened. */
export interface TestStoreOptions {
  /**
   * Seal content with a key store beside the file (`<db>.keys`, its master key in
   * `<db>.master-key`), as `npm start` does, so content can be erased.
   * @defaultValue false
   */
  readonly sealed?: boolean;
}

/** The SQLite store of a test app at `dbPath`, sealed when asked. */
function testStore(dbPath: string, options: TestStoreOptions): StoreConfig {
  return {
    kind: 'sqlite',
    path: dbPath,
    pollMs: 20,
    ...(options.sealed ? { keys: { kind: 'beside', path: dbPath, env: {} } } : {}),
  };
}

/** Creates and initializes the app on a fresh SQLite file (no listening socket). */
export async function openTestApp(
  config: HttpConfig = {},
  options: TestStoreOptions = {},
): Promise<TestApp> {
  const { dir, dbPath } = tempDb();
  const app = await createApp({
    logger: false,
    store: testStore(dbPath, options),
    ...config,
  });
  await app.init();
  return {
    app,
    server: app.getHttpServer(),
    dbPath,
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A listening server on 127.0.0.1 and a random port, on a fresh SQLite file. */
export async function startTestServer(
  config: HttpConfig = {},
  options: TestStoreOptions = {},
): Promise<RunningServer & { readonly dbPath: string }> {
  const { dir, dbPath } = tempDb();
  const server = await startServer({
    logger: false,
    host: '127.0.0.1',
    port: 0,
    store: testStore(dbPath, options),
    ...config,
  });
  return {
    ...server,
    dbPath,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One Server-Sent Events message. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** A raw SSE connection: parses messages as they arrive. */
export interface SseClient {
  readonly response: IncomingMessage;
  readonly messages: SseMessage[];
  /** Resolves once `count` messages have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  close(): void;
}

/** Opens `url` with a raw HTTP GET and reads it as an event stream. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { headers: { Accept: 'text/event-stream', ...headers } },
      (response) => {
        const messages: SseMessage[] = [];
        const waiters: (() => void)[] = [];
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields: Record<string, string> = {};
            for (const line of block.split('\n')) {
              if (line === '' || line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const name = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, '');
              fields[name] =
                name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
            }
            if (fields.data !== undefined) {
              messages.push({
                data: fields.data,
                ...(fields.id === undefined ? {} : { id: fields.id }),
                ...(fields.event === undefined ? {} : { event: fields.event }),
              });
            }
          }
          for (const waiter of waiters.splice(0)) waiter();
        });
        resolve({
          response,
          messages,
          waitFor: (count, timeoutMs = 5000) =>
            new Promise((done, fail) => {
              const deadline = setTimeout(
                () => fail(new Error(`timed out with ${messages.length} of ${count} SSE messages`)),
                timeoutMs,
              );
              const check = () => {
                if (messages.length >= count) {
                  clearTimeout(deadline);
                  done(messages.slice(0, count));
                } else waiters.push(check);
              };
              check();
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A raw HTTP answer: the status line's code, the headers (lowercased names) and the body. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Sends `bytes` as they are on a fresh connection to `url`'s host and port, and reads until the
 * server closes it: for requests no HTTP client would send (a space in the path, a body promised
 * and never sent).
 */
export function rawExchange(url: string, bytes: Buffer | string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
  });
}
