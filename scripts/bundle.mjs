// Bundles the compiled entry points (dist/*.js, from tsc) into dist/bundle/ with esbuild: a
// fresh process then loads a few files instead of ~150 modules through Node's ESM loader, which
// is most of what `import('memledger')` and every CLI command spend before doing anything.
// Shared code goes into chunks (`splitting`), so the entry points share one copy of each class
// (an error thrown by one is `instanceof` in another). Packages stay external and are resolved
// from node_modules as before, except the two small ones every import loads (uuid, minisearch),
// whose dozens of files cost more to load than their code, and zod (see zodAsUsed). Class names
// are kept: @nestjs/cqrs and error messages read them.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const INLINED = new Set(['uuid', 'minisearch', 'zod']);

/**
 * The `z` memledger's compiled code reads members of (`z.strictObject`, ...): every `z.<name>`
 * in a dist/ module that imports zod. In compiled JavaScript each one is a value, types are gone.
 */
function zodMembersUsed() {
  const names = new Set();
  const files = readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((name) => name.endsWith('.js') && !name.startsWith('bundle'))) {
    const code = readFileSync(join(root, 'dist', file), 'utf8');
    if (!/from ['"]zod['"]/.test(code)) continue;
    for (const [, name] of code.matchAll(/(?<![\w$.])z\.([A-Za-z_$][\w$]*)/g)) names.add(name);
  }
  return [...names].sort();
}

/**
 * Writes the module the bundle takes for memledger's `import { z } from 'zod'`: a `z` holding
 * only the members the code uses, imported by name from zod's own module, and returns its path.
 * `import('zod')` loads all of zod (every locale, the JSON Schema converters, the compiler) and
 * cost most of a fresh process's `import('memledger')`; named imports let esbuild leave the rest
 * out. Zod 4 is made for several copies in one process: a schema built by this copy composes
 * with, and is `instanceof`, the user's own zod (its classes check traits, its config and
 * registry live on globalThis); test/package/zod-copy.e2e.spec.ts holds it to that.
 */
function writeZodAsUsed(require) {
  const classic = join(
    dirname(require.resolve('zod/package.json')),
    'v4',
    'classic',
    'external.js',
  );
  const names = zodMembersUsed();
  const imports = names.map((name) => `${name} as z_${name}`).join(', ');
  const members = names.map((name) => `${name}: z_${name}`).join(', ');
  const path = join(root, 'dist', 'zod-as-used.js');
  writeFileSync(
    path,
    `import { ${imports} } from ${JSON.stringify(classic)};\n` +
      `export const z = Object.freeze({ ${members} });\n`,
  );
  return path;
}

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
    alias: { zod: writeZodAsUsed(require) },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) bundle();
