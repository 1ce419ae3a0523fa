/** Helpers of the key specs: a temporary folder, thrown errors, and the bytes of SQLite files. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { masterKeyFromBytes, type MasterKey } from '../../src/keys/index.js';

/** A fresh temporary folder per test, removed afterwards. */
export function useTempDir(): () => string {
  let dir: string | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'memledger-keys-'))));
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));
  return () => dir!;
}

/** The error `work` throws (the test fails when it throws nothing). */
export function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}

/** A master key of fresh random bytes. */
export function randomMasterKey(): MasterKey {
  return masterKeyFromBytes(randomBytes(32));
}

/** The bytes of a SQLite file and of its -wal and -shm when present, by file name. */
export function sqliteFileBytes(path: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const file of [path, `${path}-wal`, `${path}-shm`])
    if (existsSync(file)) files.set(file, readFileSync(file));
  return files;
}

/** The files among `files` whose bytes contain `needle`. */
export function filesHolding(files: Map<string, Buffer>, needle: Buffer): string[] {
  return [...files].filter(([, bytes]) => bytes.includes(needle)).map(([file]) => file);
}
