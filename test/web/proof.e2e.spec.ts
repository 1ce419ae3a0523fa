/**
 * The item panel's proof in a real Chromium (Debian's /usr/bin/chromium): the page verifies, with
 * the built memledger/verify files the app serves at /verify/, the item's inclusion proof against
 * the current checkpoint and the log's signature, and shows a clear verified mark; a proof forged
 * on the way to the browser, or a server that cannot prove the item, is shown as not verified,
 * with what failed. An unsigned server's proof is shown as in the log, unsigned.
 */
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/http/index.js';
import { generateSigner, type LogIdentity } from '../../src/tlog/index.js';
import {
  CHROMIUM,
  chromiumAvailable as available,
  launch,
  post as postJson,
  serve as serveWith,
} from './web-harness.js';

if (!available) console.warn(`memledger proof page tests skipped: ${CHROMIUM} is missing.`);
const describeBrowser = available ? describe : describe.skip;

const signer = generateSigner('page.test');

/** A server on a sealed file that signs its checkpoints as `log`. */
const serve = (log: LogIdentity) => serveWith({ sealed: true, log });

const post = (server: RunningServer, content: string) =>
  postJson(server, '/api/memories/default/messages', { speaker: 'user', content });

/** Opens the page, clicks the item holding `text`, and waits for its proof to settle. */
async function proofOf(page: Page, server: RunningServer, text: string): Promise<string> {
  await page.goto(server.url);
  await page.locator('#connection[data-state=live]').waitFor();
  await page.locator('#messages li.item .item-text', { hasText: text }).click();
  const proof = page.locator('#item-body .proof:not([data-state=pending])');
  await proof.waitFor();
  const summary = await proof.locator('summary').textContent();
  const details = await proof.locator('p').allTextContents();
  return `${await proof.getAttribute('data-state')}: ${summary}\n${details.join('\n')}`;
}

describeBrowser('the item panel proof in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a verified mark for an item proven against the signed checkpoint', async () => {
    const { server, dispose } = await serve({ name: signer.name, signer, witnesses: [] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      for (const content of ['first fact', 'second fact', 'third fact'])
        await post(server, content);
      const shown = await proofOf(page, server, 'second fact');
      expect(shown).toMatch(
        /^verified: ✓ Verified in this browser\nEvent #1 is leaf 1 of the tree of 3 leaves, root /,
      );
      expect(shown).toContain(`The checkpoint is signed by ${signer.name}+${signer.keyId}`);
      expect(shown).toContain('The item is sealed: the proof covers its stored ciphertext');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await dispose();
    }
  });

  it('says what failed when the proof reaching the browser was forged', async () => {
    const { server, dispose } = await serve({ name: signer.name, signer, witnesses: [] });
    const page = await browser.newPage();
    try {
      for (const content of ['one', 'two', 'three', 'four']) await post(server, content);
      await page.route('**/proofs/inclusion**', async (route) => {
        const response = await route.fetch();
        const proof = (await response.json()) as { path: string[] };
        const first = proof.path[0]!;
        proof.path[0] = (first[0] === 'A' ? 'B' : 'A') + first.slice(1);
        await route.fulfill({ response, json: proof });
      });
      const shown = await proofOf(page, server, 'two');
      expect(shown).toMatch(
        /^failed: ✗ Not verified — The inclusion path of leaf 1 leads to root .*, not to the tree of 4 leaves/,
      );
    } finally {
      await page.close();
      await dispose();
    }
  });

  it('says the signature failed when the checkpoint is not signed by the key presented', async () => {
    const { server, dispose } = await serve({ name: signer.name, signer, witnesses: [] });
    const page = await browser.newPage();
    try {
      await post(server, 'only one');
      await page.route('**/api/log-key', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/plain',
          body: `${generateSigner('page.test').vkey}\n`,
        }),
      );
      const shown = await proofOf(page, server, 'only one');
      expect(shown).toMatch(/^failed: ✗ Not verified — No trusted key signed the note/);
    } finally {
      await page.close();
      await dispose();
    }
  });

  it("shows an unsigned server's proof as in the log, unsigned", async () => {
    const { server, dispose } = await serve({ name: 'plain.test', witnesses: [] });
    const page = await browser.newPage();
    try {
      await post(server, 'plain fact');
      const shown = await proofOf(page, server, 'plain fact');
      expect(shown).toMatch(
        /^verified: ✓ In the log \(unsigned\) in this browser\nEvent #0 is leaf 0 of the tree of 1 leaves/,
      );
      expect(shown).toContain('not signed and proves nothing to anyone else');
    } finally {
      await page.close();
      await dispose();
    }
  });
});
