/**
 * What a newcomer reads on the page, in a real Chromium at 390 and 1440 px: timeline rows that
 * wrap to two lines and show all of their text on hover or focus, one way of counting (events)
 * in the slider label and the timeline header, "not given" for a deletion nobody is named for,
 * recall counts on deleted items as on visible ones, and on a phone a replay bar that stays in
 * view with the state right under it.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  SHOTS,
  chromiumAvailable,
  launch,
  noSidewaysScroll,
  post,
  serve,
} from './web-harness.js';

if (!chromiumAvailable) {
  console.warn(`memledger web reading tests skipped: ${CHROMIUM} is missing.`);
}
const describeBrowser = chromiumAvailable ? describe : describe.skip;

const LONG =
  'The user prefers short answers in the morning, long explanations after lunch, and never ' +
  'wants to be reminded about the quarterly report before the second coffee of the day, ' +
  'unless the deadline is within forty-eight hours.';

/** The first number in a text ("(14 events)" gives 14). */
const numberIn = (text: string | null) => Number(/(\d+) events?/.exec(text ?? '')?.[1]);

/** The box of an element relative to the window. */
const rectOf = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height };
  }, selector);

describeBrowser('reading the page in Chromium', () => {
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
    it(`reads at ${width} px: wrapped rows, one count, "not given", a replay bar in view`, async () => {
      const { server, dispose } = await serve();
      const page = await browser.newPage({ viewport: { width, height } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        const m = '/api/memories/default/messages';
        const long = await post(server, m, { speaker: 'user', content: LONG });
        for (let i = 0; i < 12; i++)
          await post(server, m, { speaker: 'assistant', content: `Reply number ${i}.` });
        await post(server, '/api/memories/default/recalls', {
          query: 'answers',
          recalled: [long.id],
        });
        const deletion = await post(server, '/api/memories/default/deletions', {
          targets: [long.id],
          reason: 'outdated preference',
        });
        await page.goto(server.url);
        await page.locator('#connection[data-state=live]').waitFor();
        await page.locator(`#deleted li[data-id="${long.id}"]`).waitFor();
        const events = deletion.seq + 1;

        // One way of counting: events, in the timeline header and the slider label alike. The
        // timeline loads apart from the state: wait until its header holds a count at all.
        await page.waitForFunction(() => document.querySelector('#timeline-count')?.textContent);
        const header = await page.locator('#timeline-count').textContent();
        expect(header).toBe(`(${events} events)`);
        const label = page.locator('#replay-label');
        await expect(label.textContent()).resolves.toMatch(
          new RegExp(`^now · after #${deletion.seq} · deletion · all ${events} events`),
        );
        await page.click('#step-back');
        await expect(label.textContent()).resolves.toMatch(
          new RegExp(`^after #${deletion.seq - 1} · recall · ${events - 1} of ${events} events`),
        );
        expect(numberIn(await label.textContent())).toBe(numberIn(header));
        await page.click('#now');

        // A deletion that names no requester says so, in the timeline and in the state.
        const act = page.locator('#timeline li[data-kind=deletion] .act-why');
        await expect(act.textContent()).resolves.toMatch(
          /^Requested by not given · removed 1 item/,
        );
        const deletedRow = page.locator(`#deleted li[data-id="${long.id}"]`);
        await expect(deletedRow.textContent()).resolves.toContain('requested by not given');
        // The deleted item was read once: the page says so, as /recall-stats does.
        await expect(deletedRow.locator('.recalled').textContent()).resolves.toBe('recalled 1×');
        await expect(page.locator('#totals').textContent()).resolves.toContain(
          '1 item recalled 1 time',
        );

        // The long row: two lines, all of its text in the title, and on hover or focus.
        const summary = page.locator(`#timeline li[data-id="${long.id}"] .summary`);
        await expect(summary.getAttribute('title')).resolves.toBe(`user: ${LONG}`);
        const lines = (el: HTMLElement) =>
          Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight));
        await page.mouse.move(0, 0);
        await expect(summary.evaluate(lines)).resolves.toBe(2);
        expect(await summary.evaluate((el) => el.scrollHeight > el.clientHeight + 1)).toBe(true);
        await summary.hover();
        await expect(
          summary.evaluate((el) => el.scrollHeight <= el.clientHeight + 1),
        ).resolves.toBe(true);
        await expect(summary.evaluate(lines)).resolves.toBeGreaterThan(2);
        await page.mouse.move(0, 0);
        await page.locator(`#timeline li[data-id="${long.id}"] .event-head`).focus();
        await expect(
          summary.evaluate((el) => el.scrollHeight <= el.clientHeight + 1),
        ).resolves.toBe(true);
        await page.locator(`#timeline li[data-id="${long.id}"] .event-head`).blur();

        // The replay bar stays in view when the page scrolls; on a phone the state is right under it.
        await page.evaluate(() => window.scrollTo(0, 0));
        const bar = await rectOf(page, '.replay');
        const state = await rectOf(page, '#state-panel');
        if (width < 720) {
          expect(state.top - bar.bottom).toBeGreaterThanOrEqual(0);
          expect(state.top - bar.bottom).toBeLessThan(20);
          await page.evaluate(() => window.scrollTo(0, 1500));
          await page.waitForFunction(() => window.scrollY > 0);
          const scrolled = await rectOf(page, '.replay');
          expect(scrolled.top).toBe(0);
          expect(scrolled.bottom).toBeLessThanOrEqual(height / 4);
          // Dragging the slider from there changes the state one can see below the bar.
          await page.click('#step-back');
          await page.locator('#state-at', { hasText: 'as it stood after' }).waitFor();
        } else {
          expect(bar.top).toBeGreaterThanOrEqual(0);
          expect(bar.bottom).toBeLessThanOrEqual(height / 4);
        }
        expect(await noSidewaysScroll(page)).toBe(true);
        await page.screenshot({ path: `${SHOTS}/reading-w${width}.png` });
        // Another memory counts its own events (none yet), not the last one's.
        await page.fill('#memory-id', 'elsewhere');
        await page.press('#memory-id', 'Enter');
        await page.locator('#state-at', { hasText: '(empty)' }).waitFor();
        await expect(page.locator('#timeline-count').textContent()).resolves.toBe('');
        await expect(label.textContent()).resolves.toBe('empty memory');
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await dispose();
      }
    });
  }
});
