#!/usr/bin/env node
// The `memledger` command: builds dist/ on first use inside a checkout, then runs the CLI.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (existsSync(join(root, 'scripts', 'build-if-needed.mjs'))) {
  const { buildIfNeeded } = await import('../scripts/build-if-needed.mjs');
  buildIfNeeded();
}
const { main } = await import('../dist/bundle/cli.js');
await main(process.argv);
