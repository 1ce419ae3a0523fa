/**
 * better-sqlite3, loaded when the first file is opened rather than with the package: a native
 * addon that `import('memledger')` alone, a pure-core user and a CLI command that opens no file
 * never need.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { countRollbacks } from './transactions.js';

const require = createRequire(import.meta.url);
let loaded: typeof BetterSqlite3 | undefined;
let builtAddon: string | null | undefined;

/** The better-sqlite3 `Database` class (loaded on the first call). */
function betterSqlite3(): typeof BetterSqlite3 {
  loaded ??= require('better-sqlite3') as typeof BetterSqlite3;
  return loaded;
}

/**
 * Opens a database. The native addon is named by the path npm builds it at, when it is there:
 * left to itself, better-sqlite3 finds it with the `bindings` package, which tries paths in turn
 * at a process's first open (what that costs: BENCHMARKS.md, issue 29's open rows).
 */
export function openConnection(
  path: string,
  options: BetterSqlite3.Options = {},
): BetterSqlite3.Database {
  const Database = betterSqlite3();
  const nativeBinding = addonPath();
  const db = new Database(path, nativeBinding ? { nativeBinding, ...options } : options);
  // Temporary tables in memory, not in temp files: inside a write transaction, each
  // `IN (SELECT … FROM json_each(?))` list opened one (BENCHMARKS.md, issue 29), and nothing a
  // query collects or sorts is left in a file an erasure cannot scrub.
  db.pragma('temp_store = MEMORY');
  countRollbacks(db);
  return db;
}

/** `build/Release/better_sqlite3.node` in better-sqlite3's folder, or null when not built there. */
function addonPath(): string | null {
  if (builtAddon === undefined) {
    const folder = dirname(require.resolve('better-sqlite3/package.json'));
    const built = join(folder, 'build', 'Release', 'better_sqlite3.node');
    builtAddon = existsSync(built) ? built : null;
  }
  return builtAddon;
}
