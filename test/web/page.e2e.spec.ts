/**
 * The web page in a real Chromium (Debian's /usr/bin/chromium, never a downloaded browser)
 * against a real server on 127.0.0.1 and a random port.
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
  serve as serveApp,
} from './web-harness.js';

/** The README's picture is refreshed on purpose (`npm run screenshot`), never by a test run. */
const README_SHOT = process.env.MEMLEDGER_README_SCREENSHOT ?? `${SHOTS}/readme.png`;
if (!available) {
  console.warn(`memledger web tests skipped: ${CHROMIUM} is missing (apt-get install chromium).`);
}
const describeBrowser = available ? describe : describe.skip;
const title = available
  ? 'web page in Chromium'
  : `web page in Chromium (skipped: ${CHROMIUM} is missing)`;

/** The screenshot's server is sealed, as `npm start` is, so its delete form offers "Erase too". */
const serve = (apiToken?: string) => serveApp({ sealed: true, ...(apiToken ? { apiToken } : {}) });

const visibleItems = (page: Page) => page.locator('#messages li.item, #documents li.item');

async function addMessage(page: Page, content: string, speaker = 'user') {
  await page.fill('#message-form input[name=speaker]', speaker);
  await page.fill('#message-content', content);
  await page.click('#message-form button[type=submit]');
  await page.locator('#messages li.item', { hasText: content }).waitFor();
}

/** The page's one time format: local `YYYY-MM-DD HH:MM:SS`. */
const TIME_FORMAT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Waits until the element's whole box is inside the window (a smooth scroll has ended). */
async function waitInViewport(page: Page, selector: string) {
  await page.waitForFunction(
    (sel) => {
      const r = document.querySelector(sel)!.getBoundingClientRect();
      return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    },
    selector,
    { timeout: 5_000 },
  );
}

/** The status lines of the forms and tools that say something. */
const statusTexts = (page: Page) =>
  page
    .locator('form .form-status, .tool > .form-status')
    .evaluateAll((all) => all.map((el) => el.textContent ?? '').filter((t) => t !== ''));

describeBrowser(title, () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    mkdirSync('docs', { recursive: true });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('adds, recalls, inspects, deletes, and replays a deleted item back into view', async () => {
    const { server, dispose } = await serve();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(server.url);
      await page.locator('#connection[data-state=live]').waitFor();

      await addMessage(page, 'My card number is 4242 4242 4242 4242.');
      await addMessage(page, 'Noted, I will use the card on file for the renewal.', 'assistant');
      await addMessage(page, 'The deploy key lives in the vault.');
      await page.click('#document-form >> xpath=ancestor::details/summary');
      await page.fill('#document-form input[name=name]', 'deploy-runbook.md');
      await page.fill(
        '#document-text',
        'To deploy, fetch the deploy key from the vault and run make release.',
      );
      await page.click('#document-form button[type=submit]');
      await page.locator('#documents li.item', { hasText: 'deploy-runbook.md' }).waitFor();
      await expect(visibleItems(page).count()).resolves.toBe(4);

      // The auditable read: the items it returns, and its Recall in the timeline.
      await page.fill('#recall-query', 'deploy key');
      await page.click('#recall-form button[type=submit]');
      await page
        .locator('#recall-results li', { hasText: 'deploy key lives in the vault' })
        .waitFor();
      await page.locator('#timeline li[data-kind=recall]').waitFor();
      await page
        .locator('#messages li.item', { hasText: 'deploy key' })
        .locator('.recalled')
        .waitFor();

      // The inspection search writes nothing: no new event appears.
      const before = await page.locator('#timeline li.event').count();
      await page.fill('#search-query', 'card');
      await page.click('#search-form button[type=submit]');
      await page.locator('#search-results li', { hasText: 'card number' }).waitFor();
      await expect(page.locator('#search-form + .form-status').textContent()).resolves.toMatch(
        /Nothing was written/,
      );
      await page.waitForTimeout(300);
      expect(await page.locator('#timeline li.event').count()).toBe(before);

      // Delete the card number with a reason.
      const card = page.locator('#messages li.item', { hasText: 'card number' });
      const cardId = await card.getAttribute('data-id');
      await card.locator('input[type=checkbox]').check();
      await page.fill('#delete-reason', 'user asked to forget their card number');
      await page.fill('#delete-by', 'user');
      await page.click('#delete-button');
      const deletion = page.locator('#timeline li[data-kind=deletion]');
      await deletion.waitFor();
      await expect(deletion.textContent()).resolves.toContain('forget their card number');
      await page.locator(`#deleted li[data-id="${cardId}"] s`).waitFor();
      // The inspection hits found before the deletion are marked as no longer current.
      await page.locator('#search-results.stale').waitFor();
      await expect(page.locator('#search-form + .form-status').textContent()).resolves.toMatch(
        /search again/,
      );
      await expect(page.locator(`#messages li[data-id="${cardId}"]`).count()).resolves.toBe(0);
      const deletionSeq = Number(await deletion.getAttribute('data-seq'));
      await page.screenshot({ path: `${SHOTS}/after-deletion.png` });

      // Drag the slider back to the left end: the first event's state, the card message visible.
      const slider = page.locator('#replay');
      const box = (await slider.boundingBox())!;
      await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2, { steps: 6 });
      await page.mouse.move(box.x + 1, box.y + box.height / 2, { steps: 6 });
      await page.mouse.up();
      await expect(page.locator('#replay-label').textContent()).resolves.toMatch(
        /^after #0 · message · 1 of \d+ events/,
      );
      await page.locator('#state-at', { hasText: 'as it stood after #0' }).waitFor();
      await page.locator(`#messages li[data-id="${cardId}"]`).waitFor();
      await expect(visibleItems(page).count()).resolves.toBe(1);
      await expect(page.locator('#timeline li.event.future').count()).resolves.toBe(deletionSeq);

      // With the keyboard: one event before the deletion it is visible, at the deletion it is gone.
      await slider.focus();
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      await expect(page.locator('#replay-label').textContent()).resolves.toContain(
        `after #${deletionSeq - 1}`,
      );
      await page
        .locator('#state-at', { hasText: `as it stood after #${deletionSeq - 1}` })
        .waitFor();
      await page.locator('#state-panel:not([aria-busy])').waitFor();
      await page.locator(`#messages li[data-id="${cardId}"]`).waitFor();
      await expect(page.locator(`#deleted li[data-id="${cardId}"]`).count()).resolves.toBe(0);
      await page.screenshot({ path: `${SHOTS}/replay-before-deletion.png` });
      await page.keyboard.press('ArrowRight');
      await page.locator(`#messages li[data-id="${cardId}"]`).waitFor({ state: 'detached' });
      await page.locator(`#deleted li[data-id="${cardId}"]`).waitFor();
      await expect(page.locator('#replay-label').textContent()).resolves.toMatch(/^now/);
      await page.locator('#state-at', { hasText: `now (after #${deletionSeq})` }).waitFor();

      // The item panel: full history, with a link to the Deletion.
      await page.locator(`#deleted li[data-id="${cardId}"] .item-text`).click();
      await page.locator('#item-body .deleted-note', { hasText: `#${deletionSeq}` }).waitFor();
      await page.locator('#item-body .deleted-note button').click();
      await page
        .locator('#item-body dd', { hasText: 'user asked to forget their card number' })
        .waitFor();

      // Live: another client appends; the timeline and the state update without a reload.
      await post(server, '/api/memories/default/messages', {
        speaker: 'user',
        content: 'When is the next release planned?',
        sessionId: 's-2',
        actor: 'cli',
      });
      await page.locator('#timeline li.event', { hasText: 'next release' }).waitFor();
      await page.locator('#messages li.item', { hasText: 'next release' }).waitFor();
      await page
        .locator('#timeline li.event', { hasText: 'deploy key lives' })
        .locator('button')
        .first()
        .click();
      await page.locator('#item-body h4', { hasText: 'Recalled 1 time' }).waitFor();
      await page.screenshot({ path: `${SHOTS}/live-and-history.png` });
      // The README's picture: forms folded, so recall, inspection and the item panel all show.
      await page
        .locator('.tools details')
        .evaluateAll((all) => all.forEach((d) => d.removeAttribute('open')));
      await page.locator('.tools').evaluate((el) => el.scrollTo(0, 0));
      await page.screenshot({ path: README_SHOT });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await dispose();
    }
  });

  it('switches memories and keeps them apart', async () => {
    const { server, dispose } = await serve();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await post(server, '/api/memories/support-bot/messages', {
        speaker: 'user',
        content: 'Only in support-bot.',
      });
      await page.goto(server.url);
      await page.locator('#connection[data-state=live]').waitFor();
      await expect(visibleItems(page).count()).resolves.toBe(0);
      await page.fill('#memory-id', 'support-bot');
      await page.press('#memory-id', 'Enter');
      await page.locator('#messages li.item', { hasText: 'Only in support-bot' }).waitFor();
      expect(page.url()).toContain('memory=support-bot');
    } finally {
      await page.close();
      await dispose();
    }
  });

  it('asks for the API token on 401 and then works, live stream included', async () => {
    const token = 'web-test-token';
    const { server, dispose } = await serve(token);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(server.url);
      await page.locator('#token-dialog[open]').waitFor();
      await page.screenshot({ path: `${SHOTS}/token-dialog.png` });
      await page.fill('#token-input', token);
      await page.click('#token-dialog button[value=ok]');
      await page.locator('#connection[data-state=live]').waitFor();
      await post(
        server,
        '/api/memories/default/messages',
        { speaker: 'user', content: 'Behind a token.' },
        token,
      );
      await page.locator('#timeline li.event', { hasText: 'Behind a token' }).waitFor();
      await expect(page.evaluate(() => sessionStorage.getItem('memledger.token'))).resolves.toBe(
        token,
      );
    } finally {
      await page.close();
      await dispose();
    }
  });
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`holds up at ${width} px: no sideways scroll, item panel in view, one time format, statuses cleared`, async () => {
      const { server, dispose } = await serve();
      // A time zone with a half-hour offset, so the check shows times are converted to local.
      const page = await browser.newPage({
        viewport: { width, height },
        timezoneId: 'Asia/Kolkata',
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        const m = '/api/memories/default/messages';
        const first = await post(server, m, {
          speaker: 'user',
          content: 'Recorded at a known time.',
          timestamp: '2026-03-01T10:15:30.000Z',
        });
        for (let i = 0; i < 30; i++)
          await post(server, m, {
            speaker: i % 2 ? 'assistant' : 'user',
            content: `Note ${i} on the deploy key, with an unbroken token_${'x'.repeat(60)}`,
            sessionId: 'session-with-a-rather-long-name',
          });
        for (let i = 0; i < 6; i++)
          await post(server, '/api/memories/default/recall', { query: 'known time', actor: 'a1' });
        await page.goto(server.url);
        await page.locator('#connection[data-state=live]').waitFor();
        await page.locator(`#messages li[data-id="${first.id}"]`).waitFor();
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: `${SHOTS}/w${width}-page.png`, fullPage: true });

        // One time format everywhere, local, with the stored ISO time in the title.
        const known = page.locator(`#messages li[data-id="${first.id}"] time`);
        await expect(known.textContent()).resolves.toBe('2026-03-01 15:45:30');
        await expect(known.getAttribute('title')).resolves.toBe('2026-03-01T10:15:30.000Z');
        const times = await page
          .locator('time')
          .evaluateAll((all) => all.map((t) => [t.textContent, t.getAttribute('title')]));
        expect(times.length).toBeGreaterThan(30);
        for (const [text, iso] of times) {
          expect(text).toMatch(TIME_FORMAT);
          expect(Number.isNaN(Date.parse(iso ?? ''))).toBe(false);
        }
        await expect(page.locator('#replay-label time').textContent()).resolves.toMatch(
          TIME_FORMAT,
        );
        const shown = await page.evaluate(() => document.body.innerText);
        expect(shown).not.toMatch(/\d:\d{2}:\d{2}\s?[AP]M|\d{4}-\d{2}-\d{2}T\d{2}:/);

        // After a click the item panel scrolls into view, whole, its history included.
        await page.locator(`#messages li[data-id="${first.id}"] .item-text`).click();
        await page.locator('#item-body h4', { hasText: 'Recalled 6 times' }).waitFor();
        await waitInViewport(page, '#item-panel');
        const box = (await page.locator('#item-panel').boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThanOrEqual(height);
        await expect(page.locator('#item-body dd time').textContent()).resolves.toBe(
          '2026-03-01 15:45:30',
        );
        expect(await noSidewaysScroll(page)).toBe(true);
        if (width < 720) {
          // On a phone the page scrolls as a whole: no panel is a scroll box of its own.
          const boxes = await page.evaluate(() =>
            Array.from(document.querySelectorAll<HTMLElement>('main *'))
              .filter((el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowY))
              .filter((el) => el.scrollHeight > el.clientHeight + 1)
              .map((el) => el.id || el.className),
          );
          expect(boxes).toEqual([]);
        }
        await page.screenshot({ path: `${SHOTS}/w${width}-item.png` });

        // A status line speaks of the replay point it was written at: moving the slider clears it.
        await addMessage(page, 'One more, from the page.');
        await expect(statusTexts(page)).resolves.toEqual([expect.stringMatching(/^Recorded as #/)]);
        await page.fill('#recall-query', 'deploy key');
        await page.click('#recall-form button[type=submit]');
        await page.locator('#recall-results li').first().waitFor();
        await expect(statusTexts(page)).resolves.toHaveLength(2);
        await page.locator('#state-at', { hasText: 'now' }).waitFor();
        await page.click('#step-back');
        await expect(page.locator('#replay-label').textContent()).resolves.toMatch(/^after #/);
        await expect(statusTexts(page)).resolves.toEqual([]);
        await expect(page.locator('#recall-results li').count()).resolves.toBe(0);
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: `${SHOTS}/w${width}-past.png` });

        // And so does opening another memory.
        await page.click('#now');
        await addMessage(page, 'Last one here.');
        await expect(statusTexts(page)).resolves.toHaveLength(1);
        await page.fill('#memory-id', 'elsewhere');
        await page.press('#memory-id', 'Enter');
        await page.locator('#state-at', { hasText: '(empty)' }).waitFor();
        await expect(statusTexts(page)).resolves.toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await dispose();
      }
    });
  }

  it('says how much of a cut list it shows and loads the rest on request', async () => {
    const { server, dispose } = await serve();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      for (let i = 0; i < 205; i++)
        await post(server, '/api/memories/default/messages', {
          speaker: 'user',
          content: `Paged message ${i}.`,
        });
      await page.goto(server.url);
      await page.locator('#connection[data-state=live]').waitFor();
      const more = page.locator('#messages li.more');
      await expect(more.textContent()).resolves.toMatch(/^Showing 200 of 205 messages\./);
      await expect(page.locator('#messages li.item').count()).resolves.toBe(200);
      await expect(page.locator('#totals').textContent()).resolves.toContain('205 messages');
      await more.locator('button').click();
      await page.locator('#messages li.item', { hasText: 'Paged message 204.' }).waitFor();
      await expect(page.locator('#messages li.item').count()).resolves.toBe(205);
      await expect(more.count()).resolves.toBe(0);
      // The timeline shows its newest 25 on a phone, and the rest when asked.
      await expect(page.locator('#timeline-toggle').textContent()).resolves.toBe(
        'Show 180 older events',
      );
      await expect(page.locator('#timeline li.event:visible').count()).resolves.toBe(25);
      await page.click('#timeline-toggle');
      await expect(page.locator('#timeline li.event:visible').count()).resolves.toBe(205);
      expect(await noSidewaysScroll(page)).toBe(true);
    } finally {
      await page.close();
      await dispose();
    }
  });
});
