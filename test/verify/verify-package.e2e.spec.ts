/**
 * `memledger/verify` as its users get it: imported by name from the built package in Node, and
 * the very same built files loaded as ES modules into a real Chromium (Debian's
 * /usr/bin/chromium), where they verify the checked-in signed checkpoint and proofs with
 * WebCrypto alone and refuse a forged proof.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { buildOnce } from '../cli/cli-harness.js';

jest.setTimeout(180_000);
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const vectorsPath = join(root, 'test', 'fixtures', 'leaf-v1.vectors.json');

/** Verifies the vectors' checkpoint and first inclusion proof; `forge` flips a path byte first. */
const check = `async (verify, vectors, forge) => {
  const { checkpoint, proofs, leaves } = vectors;
  const log = await verify.parseVerifierKey(checkpoint.logKey);
  const witness = await verify.parseVerifierKey(checkpoint.witnessKey);
  const verified = await verify.verifyCheckpoint(checkpoint.note, { log, witnesses: [witness], origin: 'vectors.example/team-1' });
  const json = structuredClone(proofs.inclusion[0]);
  if (forge) json.path[0] = (json.path[0][0] === 'A' ? 'B' : 'A') + json.path[0].slice(1);
  const proof = verify.parseInclusionProof(json);
  try {
    await verify.verifyLeafInclusion(proof, verified, leaves[proof.seq].input);
    return { size: verified.size, cosigned: verified.cosignatures.length, ok: true };
  } catch (error) {
    return { size: verified.size, ok: false, code: error.code };
  }
}`;

describe('memledger/verify', () => {
  beforeAll(() => buildOnce());

  it('loads from the built package by name and verifies the vectors in Node', async () => {
    const script = `
      const verify = await import('memledger/verify');
      const vectors = JSON.parse(await (await import('node:fs/promises')).readFile(${JSON.stringify(vectorsPath)}, 'utf8'));
      const check = ${check};
      console.log(JSON.stringify([await check(verify, vectors, false), await check(verify, vectors, true)]));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual([
      { size: 8, cosigned: 1, ok: true },
      { size: 8, ok: false, code: 'INCLUSION_PROOF_INVALID' },
    ]);
  });

  const chromiumPath = '/usr/bin/chromium';
  const inBrowser = existsSync(chromiumPath) ? it : it.skip;
  if (!existsSync(chromiumPath))
    console.warn(`memledger/verify browser test skipped: ${chromiumPath} is missing.`);

  inBrowser('runs unchanged in Chromium with WebCrypto alone', async () => {
    const server: Server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const file = normalize(join(root, 'dist', path.replace(/^\/verify/, 'verify')));
      if (path === '/') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>verify</title>');
      } else if (
        path.startsWith('/verify/') &&
        file.startsWith(join(root, 'dist', 'verify')) &&
        existsSync(file)
      ) {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(readFileSync(file));
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await chromium.launch({ executablePath: chromiumPath });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as unknown;
      const results = await page.evaluate(
        async ([source, data]) => {
          const url = '/verify/index.js';
          const verify: unknown = await import(url);
          // eslint-disable-next-line @typescript-eslint/no-implied-eval
          const make = new Function(`return ${source}`) as () => unknown;
          const checkOf = make() as (v: unknown, d: unknown, f: boolean) => Promise<unknown>;
          return [await checkOf(verify, data, false), await checkOf(verify, data, true)];
        },
        [check, vectors] as const,
      );
      expect(results).toEqual([
        { size: 8, cosigned: 1, ok: true },
        { size: 8, ok: false, code: 'INCLUSION_PROOF_INVALID' },
      ]);
    } finally {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
