/**
 * The page with access keys, in a real Chromium (Debian's /usr/bin/chromium) against a real
 * server: it asks for a key, keeps it for the tab, lists only the memories the key may read,
 * shows only the tools it may use, says who it acts as, shows the principal on record beside the
 * claimed actor, proves an item with the key's read right, and filters the recall audit by
 * principal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openSqliteGrantStore, type CreatedKey } from '../../src/access/index.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { untilAccepted } from '../access/isolation.fixture.js';
import { CHROMIUM, chromiumAvailable as available, launch, post as postAs } from './web-harness.js';

if (!available) console.warn(`memledger web access tests skipped: ${CHROMIUM} is missing.`);
const describeBrowser = available ? describe : describe.skip;

interface World {
  readonly server: RunningServer;
  readonly viewer: CreatedKey;
  readonly writer: CreatedKey;
  dispose(): Promise<void>;
}

async function world(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-web-access-'));
  const path = join(dir, 'memledger.db');
  const grants = openSqliteGrantStore({ path });
  const by = { principal: 'test', via: 'local' } as const;
  const seed = await grants.create({ principal: 'seeder', memories: ['*'], rights: ['write'] }, by);
  const viewer = await grants.create(
    { principal: 'viewer', memories: ['alpha'], rights: ['read'] },
    by,
  );
  const writer = await grants.create(
    { principal: 'writer-1', memories: ['alpha', 'beta'], rights: ['read', 'recall', 'write'] },
    by,
  );
  await grants.close();
  const server = await startServer({
    logger: false,
    host: '127.0.0.1',
    port: 0,
    store: { kind: 'sqlite', path, pollMs: 20 },
  });
  await untilAccepted(server.url, seed.secret, seed.key.id);
  const post = (memoryId: string, route: string, body: object, secret: string) =>
    postAs(server, `/api/memories/${memoryId}/${route}`, body, secret);
  for (const memoryId of ['alpha', 'beta', 'gamma']) {
    await post(
      memoryId,
      'messages',
      { speaker: 'user', content: `The ${memoryId} plan.`, actor: 'chat-ui' },
      seed.secret,
    );
  }
  await post('alpha', 'recall', { query: 'plan', actor: 'claims-to-be-viewer' }, writer.secret);
  return {
    server,
    viewer,
    writer,
    dispose: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function enterKey(page: Page, secret: string): Promise<void> {
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', secret);
  await page.click('#token-dialog button[value=ok]');
}

describeBrowser('the page with access keys', () => {
  let browser: Browser;
  let w: World;
  beforeAll(async () => {
    browser = await launch();
    w = await world();
  }, 60_000);
  afterAll(async () => {
    // The browser first: its pages' event streams end before the server closes.
    await browser?.close();
    await w?.dispose();
  });

  it('asks for a key, then shows only what a read-only key may see and do', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await page.goto(`${w.server.url}/?memory=alpha`);
      await enterKey(page, w.viewer.secret);
      await page.locator('#who', { hasText: 'as viewer' }).waitFor();
      await page.locator('#messages li.item', { hasText: 'The alpha plan.' }).waitFor();
      await page.locator('#connection[data-state=live]').waitFor();
      // Only the memory it may read is offered.
      await page.waitForFunction(() => document.querySelectorAll('#memory-list option').length > 0);
      const offered = await page
        .locator('#memory-list option')
        .evaluateAll((all) => all.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual(['alpha']);
      // Tools it may not use are not shown; reading ones are.
      const shown = async (selector: string) => page.locator(selector).isVisible();
      expect(await shown('#message-form')).toBe(false);
      expect(await shown('#recall-form')).toBe(false);
      expect(await shown('.delete-fields')).toBe(false);
      expect(await shown('#search-form')).toBe(true);
      expect(await shown('#audit-form')).toBe(true);
      // The recall audit by principal: who was authenticated, beside what it claimed.
      await page.fill('#audit-form input[name=principal]', 'writer-1');
      await page.click('#audit-form button[type=submit]');
      const audited = page.locator('#audit-results li.audited-recall');
      await audited.waitFor();
      expect(await audited.textContent()).toContain(
        `recorded by writer-1 (key:${w.writer.key.id})`,
      );
      expect(await audited.textContent()).toContain('actor claims-to-be-viewer');
      expect(await audited.locator('.audited-items li').textContent()).toContain('The alpha plan.');
      await page.fill('#audit-form input[name=principal]', 'nobody-at-all');
      await page.click('#audit-form button[type=submit]');
      await page.locator('#audit-form .form-status', { hasText: '0 recalls' }).waitFor();
      // The item panel shows the principal on record beside the claimed actor.
      await page.locator('#timeline li.event-recall .event-head').click();
      await page
        .locator('#item-body dd', { hasText: `writer-1 (key:${w.writer.key.id})` })
        .waitFor();
      // Its proof is fetched with the same key: a read key reaches the memory's checkpoint and proofs.
      const proof = page.locator('#item-body .proof:not([data-state=pending])');
      await proof.waitFor();
      expect([
        await proof.getAttribute('data-state'),
        await proof.locator('summary').textContent(),
      ]).toEqual(['verified', '✓ In the log (unsigned) in this browser']);
      // Another memory answers as one it may not read: refused, nothing of it shown.
      await page.fill('#memory-id', 'beta');
      await page.click('#memory-form button[type=submit]');
      await page.locator('#totals', { hasText: 'FORBIDDEN' }).waitFor();
      expect(await page.locator('#messages li.item').count()).toBe(0);
      expect(await page.content()).not.toContain('The beta plan.');
    } finally {
      await page.close();
    }
  });

  it('changes key on request, and shows the writing tools to a key that may write', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${w.server.url}/?memory=beta`);
      await enterKey(page, w.viewer.secret);
      await page.locator('#who', { hasText: 'as viewer' }).waitFor();
      await page.click('#change-key');
      await enterKey(page, w.writer.secret);
      await page.locator('#who', { hasText: 'as writer-1' }).waitFor();
      await page.locator('#messages li.item', { hasText: 'The beta plan.' }).waitFor();
      expect(await page.locator('#message-form').isVisible()).toBe(true);
      expect(await page.locator('#recall-form').isVisible()).toBe(true);
      expect(await page.locator('.delete-fields').isVisible()).toBe(false);
      await page.fill('#message-content', 'Written from the page.');
      await page.click('#message-form button[type=submit]');
      const entry = page.locator('#timeline li.event', { hasText: 'Written from the page.' });
      await entry.waitFor();
      expect(await entry.locator('.meta-principal').textContent()).toBe('by writer-1');
    } finally {
      await page.close();
    }
  });
});
