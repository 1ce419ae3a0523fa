/**
 * better-sqlite3, loaded when the first file is opened rather than with the package: a native
 * addon that `import('memledger')` alone, a pure-core user and a CLI command that opens no file
 * never need.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

let loaded: typeof BetterSqlite3 | undefined;

/** The better-sqlite3 `Database` class (loaded on the first call). */
export function betterSqlite3(): typeof BetterSqlite3 {
  loaded ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return loaded;
}
