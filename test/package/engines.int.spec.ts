/**
 * An install on the oldest Node memledger supports is clean: no installed package (nested ones
 * included) declares an `engines.node` range that excludes it, which is what npm's EBADENGINE
 * warning reports. (file-type 22, pinned by @nestjs/common 12, needs Node 22: package.json
 * overrides it with 21.3.4, the version Nest 11 used, whose API Nest's FileTypeValidator calls.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const require = createRequire(join(root, 'package.json'));
const semver = require('semver') as { satisfies(version: string, range: string): boolean };
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

/** `name@version range` of every installed package whose engines.node excludes `version`. */
function excluding(dir: string, version: string, found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      excluding(join(dir, name), version, found);
      continue;
    }
    const path = join(dir, name, 'package.json');
    if (existsSync(path)) {
      const pkg = JSON.parse(readFileSync(path, 'utf8')) as {
        name: string;
        version: string;
        engines?: { node?: unknown };
      };
      const range = pkg.engines?.node;
      if (typeof range === 'string' && !semver.satisfies(version, range))
        found.push(`${pkg.name}@${pkg.version} ${range}`);
    }
    excluding(join(dir, name, 'node_modules'), version, found);
  }
  return found;
}

describe('installed dependencies', () => {
  it('all accept the oldest Node that package.json promises', () => {
    const oldest = /^>=(\d+\.\d+)$/.exec(manifest.engines.node)![1]!;
    expect(excluding(join(root, 'node_modules'), `${oldest}.0`)).toEqual([]);
  });
});
