// Builds dist/ (tsc, then the bundle: scripts/bundle.mjs) when it is missing or older than any
// file under src/ or the bundle script, so `npm start` and the `memledger` binary work straight after `npm install`
// without a manual build step.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds when needed; returns true when it built. */
export function buildIfNeeded() {
  // Written last: the bundle of the application's entry point.
  const marker = join(root, 'dist', 'bundle', 'main.js');
  const src = join(root, 'src');
  if (!existsSync(src)) return false; // an installed package ships dist/ only
  const bundler = statSync(join(root, 'scripts', 'bundle.mjs')).mtimeMs;
  if (existsSync(marker) && statSync(marker).mtimeMs >= Math.max(newestMtime(src), bundler)) {
    return false;
  }
  console.error('memledger: building (tsc, esbuild) ...');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildIfNeeded();
