/**
 * What the browser specs share: Debian's Chromium (never a downloaded browser), a real server on
 * 127.0.0.1 and a random port on a fresh SQLite file, and a client posting to it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/http/index.js';
import type { LogIdentity } from '../../src/tlog/index.js';

/** Debian's chromium package. */
export const CHROMIUM = '/usr/bin/chromium';
/** Where the specs leave their screenshots (not part of the repository). */
export const SHOTS = 'test-results/screenshots';
/** False when Chromium is missing: the browser specs are then skipped with a printed reason. */
export const chromiumAvailable = existsSync(CHROMIUM);

/** Starts headless Chromium. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A server of the application on a fresh SQLite file (sealed when asked, as `npm start` is;
 * signing its checkpoints as `log` when given).
 */
export async function serve(
  options: { apiToken?: string; sealed?: boolean; log?: LogIdentity } = {},
): Promise<{ server: RunningServer; dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-web-'));
  const path = join(dir, 'memledger.db');
  const server = await startServer({
    logger: false,
    host: '127.0.0.1',
    port: 0,
    store: {
      kind: 'sqlite',
      path,
      pollMs: 20,
      ...(options.sealed ? { keys: { kind: 'beside', path, env: {} } } : {}),
    },
    ...(options.apiToken ? { apiToken: options.apiToken } : {}),
    ...(options.log ? { memory: { log: options.log } } : {}),
  });
  return {
    server,
    dispose: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POSTs JSON to the server as another client would; expects 201. */
export async function post(server: RunningServer, path: string, body: object, token?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; seq: number };
}

/** True when the page is no wider than the window (nothing to scroll sideways to). */
export const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
