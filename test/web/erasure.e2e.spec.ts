/**
 * Erasure on the web page, in a real Chromium (Debian's /usr/bin/chromium) against a real server
 * on a sealed SQLite file: the delete form's "erase too", an erased item shown as an act (who,
 * why, when) and never its words — in the state, the timeline, the item panel, search results
 * and past replay points — at 390 and 1440 px.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  SHOTS,
  chromiumAvailable as available,
  launch,
  noSidewaysScroll,
  post,
  serve,
} from './web-harness.js';

if (!available) {
  console.warn(
    `memledger web erasure tests skipped: ${CHROMIUM} is missing (apt-get install chromium).`,
  );
}
const describeBrowser = available ? describe : describe.skip;
const title = available
  ? 'erasure on the web page in Chromium'
  : `erasure on the web page in Chromium (skipped: ${CHROMIUM} is missing)`;

/** The words that must never be on the page once erased. */
const SECRET = 'passport X1234567';
const OTHER_SECRET = 'lives at 12 Elm Street';

const pageText = (page: Page) => page.evaluate(() => document.body.innerText);

describeBrowser(title, () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`deletes and erases with "erase too" and shows the act, never the words, at ${width} px`, async () => {
      const { server, dispose } = await serve({ sealed: true });
      const page = await browser.newPage({ viewport: { width, height } });
      page.setDefaultTimeout(10_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        const m = '/api/memories/default/messages';
        const secret = await post(server, m, { speaker: 'user', content: `My ${SECRET}.` });
        await post(server, m, { speaker: 'user', content: 'The release is on Friday.' });
        await page.goto(server.url);
        await page.locator('#connection[data-state=live]').waitFor();
        const row = page.locator(`#messages li[data-id="${secret.id}"]`);
        await row.waitFor();

        // The words are on the page until the erasure: in the timeline, a search hit, the panel.
        await page.fill('#search-query', 'passport');
        await page.click('#search-form button[type=submit]');
        await page.locator(`#search-results li[data-id="${secret.id}"]`).waitFor();
        await row.locator('.item-text').click();
        await page.locator('#item-body pre.content', { hasText: SECRET }).waitFor();

        // Delete with "erase too".
        await row.locator('input[type=checkbox]').check();
        await page.fill('#delete-reason', 'GDPR art. 17 request');
        await page.fill('#delete-by', 'dpo');
        await page.check('#delete-erase');
        await page.click('#delete-button');
        await page
          .locator('#delete-form .form-status', { hasText: /Deletion #2 and erasure #3 recorded/ })
          .waitFor();
        await expect(page.locator('#delete-erase').isChecked()).resolves.toBe(false);

        // The act: in the timeline, the deleted list and the item panel; who, why, when.
        const act = page.locator('#timeline li[data-kind=erasure]');
        await act.waitFor();
        await expect(act.textContent()).resolves.toMatch(/GDPR art\. 17 request/);
        await expect(act.textContent()).resolves.toMatch(/Requested by dpo · erased 1 item/);
        const deleted = page.locator(`#deleted li[data-id="${secret.id}"]`);
        await deleted.locator('.erased-note').waitFor();
        await expect(deleted.textContent()).resolves.toMatch(/Erased at #3 .* by dpo: .*GDPR/);
        await page.locator('#item-body .erased-note', { hasText: 'by dpo' }).waitFor();
        await expect(page.locator('#item-body .erased-note time').count()).resolves.toBe(1);
        await expect(page.locator('#item-body pre.content').count()).resolves.toBe(0);
        await page.locator(`#search-results li[data-id="${secret.id}"]`).waitFor({
          state: 'detached',
        });
        expect(await pageText(page)).not.toContain(SECRET);

        // Another client erases a second item: the page forgets its words live, too.
        const other = await post(server, m, { speaker: 'user', content: `Alice ${OTHER_SECRET}.` });
        await page.locator('#timeline li.event', { hasText: OTHER_SECRET }).waitFor();
        await post(server, '/api/memories/default/deletions', {
          targets: [other.id],
          reason: 'moved away',
          requestedBy: 'alice',
          erase: true,
        });
        await page.locator(`#deleted li[data-id="${other.id}"] .erased-note`).waitFor();
        await page.locator('#timeline li.event', { hasText: OTHER_SECRET }).waitFor({
          state: 'detached',
        });
        expect(await pageText(page)).not.toContain(OTHER_SECRET);

        // In the past, before the deletion, the item is visible again — as erased, not in words.
        await page.locator('#replay').focus();
        await page.keyboard.press('Home');
        await page.keyboard.press('ArrowRight');
        await page.locator('#state-at', { hasText: 'as it stood after #1' }).waitFor();
        await page.locator('#state-panel:not([aria-busy])').waitFor();
        await expect(row.textContent()).resolves.toContain('[erased]');
        const text = await pageText(page);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(OTHER_SECRET);
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: `${SHOTS}/w${width}-erased.png`, fullPage: true });

        // A fresh load (nothing cached) shows the same.
        await page.reload();
        await page.locator('#connection[data-state=live]').waitFor();
        await deleted.locator('.erased-note').waitFor();
        const fresh = await pageText(page);
        expect(fresh).not.toContain(SECRET);
        expect(fresh).not.toContain(OTHER_SECRET);
        expect(await noSidewaysScroll(page)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await dispose();
      }
    }, 60_000);
  }
});
