// Bundles the compiled entry points (dist/*.js, from tsc) into dist/bundle/ with esbuild: a
// fresh process then loads a few files instead of ~150 modules through Node's ESM loader, which
// is most of what `import('memledger')` and every CLI command spend before doing anything.
// Shared code goes into chunks (`splitting`), so the entry points share one copy of each class
// (an error thrown by one is `instanceof` in another). Packages stay external and are resolved
// from node_modules as before, except the two small ones every import loads (uuid, minisearch),
// whose dozens of files cost more to load than their code. Class names are kept: @nestjs/cqrs
// and error messages read them.
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's folder. Two levels below the package root, as src/<folder>/ is, so the paths
 * the code resolves from `import.meta.url` (../../package.json, ../../web) land on the same files. */
export const BUNDLE_DIR = join(root, 'dist', 'bundle');

/** Entry point name -> the compiled module it starts from. */
const ENTRY_POINTS = {
  index: 'dist/index.js',
  sqlite: 'dist/sqlite.js',
  eventstoredb: 'dist/eventstoredb.js',
  nest: 'dist/nest.js',
  testing: 'dist/testing.js',
  verify: 'dist/verify.js',
  main: 'dist/main.js',
  cli: 'dist/cli/main.js',
};

/** Packages copied into the bundle instead of resolved at run time. */
const INLINED = new Set(['uuid', 'minisearch']);

/** Bundles dist/'s entry points into {@link BUNDLE_DIR}; dist/ must be built. */
export function bundle() {
  const require = createRequire(join(root, 'package.json'));
  const { buildSync } = require('esbuild');
  const pkg = require('./package.json');
  const packages = Object.keys({
    ...pkg.dependencies,
    ...pkg.peerDependencies,
    ...pkg.optionalDependencies,
  });
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  buildSync({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS,
    outdir: BUNDLE_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    // A package's subpaths (`@modelcontextprotocol/sdk/server/stdio.js`) are external with it.
    external: packages.filter((name) => !INLINED.has(name)).flatMap((name) => [name, `${name}/*`]),
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) bundle();
