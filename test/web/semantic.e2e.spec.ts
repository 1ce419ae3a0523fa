/**
 * The page with semantic recall, in a real Chromium (Debian's /usr/bin/chromium) against a real
 * server whose embedder is an OpenAI-compatible server on loopback: the recall form takes a mode,
 * its status says how the items were retrieved, and the item panel shows a Recall's retrieval
 * and, in an item's history, how each recall that used it retrieved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { httpConfigFromEnv, startServer, type RunningServer } from '../../src/http/index.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { CHROMIUM, chromiumAvailable as available, launch } from './web-harness.js';

if (!available) console.warn(`memledger web tests skipped: ${CHROMIUM} is missing.`);
const describeBrowser = available ? describe : describe.skip;

describeBrowser(
  available
    ? 'semantic recall on the page'
    : `semantic recall on the page (skipped: ${CHROMIUM} is missing)`,
  () => {
    let browser: Browser;
    let embeddings: EmbeddingServer;
    let server: RunningServer;
    let dir: string;
    beforeAll(async () => {
      browser = await launch();
      embeddings = await startEmbeddingServer(64);
      dir = mkdtempSync(join(tmpdir(), 'memledger-web-semantic-'));
      const { memory } = httpConfigFromEnv({
        MEMLEDGER_EMBEDDINGS_URL: `${embeddings.origin}/v1`,
        MEMLEDGER_EMBEDDINGS_MODEL: 'loopback-embed',
        MEMLEDGER_EMBEDDINGS_DIMENSIONS: '64',
      });
      server = await startServer({
        logger: false,
        host: '127.0.0.1',
        port: 0,
        store: { kind: 'sqlite', path: join(dir, 'memledger.db'), pollMs: 20 },
        memory: { ...memory, readModels: ':memory:' },
      });
    });
    afterAll(async () => {
      await server?.close();
      await embeddings?.close();
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('recalls by the chosen mode and shows how each recall retrieved', async () => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await page.locator('#connection[data-state=live]').waitFor();
      await page.fill('#message-content', 'the ponies graze in the paddock');
      await page.click('#message-form button[type=submit]');
      await page.locator('#messages li.item', { hasText: 'ponies' }).waitFor();

      await page.fill('#recall-query', 'ponys paddocks');
      await page.selectOption('#recall-mode', 'semantic');
      await page.click('#recall-form button[type=submit]');
      await page.locator('#recall-results li', { hasText: 'ponies graze' }).waitFor();
      await expect(page.locator('#recall-form + .form-status').textContent()).resolves.toContain(
        '(meaning: loopback-embed, 64 dimensions, exact vectors)',
      );

      // The Recall in the item panel: its retrieval as recorded.
      await page.locator('#timeline li[data-kind=recall] button').first().click();
      await page
        .locator('#item-body dd', {
          hasText: 'semantic · loopback-embed, 64 dimensions · exact vectors',
        })
        .waitFor();
      // The item's history: how the recall that used it retrieved.
      await page.locator('#recall-results li button').first().click();
      await page.locator('#item-body .recall-uses li', { hasText: 'semantic' }).waitFor();
      expect(errors).toEqual([]);
    });
  },
);
