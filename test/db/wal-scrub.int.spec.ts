/**
 * The WAL scrub (src/db/wal-scrub.ts) on real files: a TRUNCATE checkpoint that never waits for
 * a reader, and the retries that finish it once the reader lets go.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import { truncateWal, walHoldsFrames, WalScrubber } from '../../src/db/wal-scrub.js';

let dir: string;
let path: string;
const open: Database.Database[] = [];
const connect = (options?: Database.Options) => {
  const db = new Database(path, options);
  open.push(db);
  return db;
};
const walSize = () => statSync(`${path}-wal`).size;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-wal-scrub-'));
  path = join(dir, 'file.db');
  const db = connect();
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE t (x TEXT)');
  db.prepare('INSERT INTO t VALUES (?)').run('secret words');
});
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A reader in another connection holding a snapshot, as a backup does. */
function holdSnapshot(): Database.Database {
  const reader = connect({ readonly: true });
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM t').get();
  return reader;
}

describe('truncateWal', () => {
  it('empties the WAL when no reader holds an older snapshot', () => {
    const [db] = open;
    expect(walHoldsFrames(path)).toBe(true);
    expect(truncateWal(db!)).toBe('done');
    expect(walSize()).toBe(0);
    expect(walHoldsFrames(path)).toBe(false);
  });

  it('reports busy at once, not after the busy timeout, while a reader holds a snapshot', () => {
    const [db] = open;
    const reader = holdSnapshot();
    db!.prepare('INSERT INTO t VALUES (?)').run('more');
    const started = performance.now();
    expect(truncateWal(db!)).toBe('busy');
    // The connection waits 5 s for a lock; the scrub must not.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(db!.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(walSize()).toBeGreaterThan(0);
    reader.exec('COMMIT');
    expect(truncateWal(db!)).toBe('done');
  });

  it('reports busy inside an open transaction of its own connection instead of throwing', () => {
    const [db] = open;
    db!.exec('BEGIN IMMEDIATE');
    expect(truncateWal(db!)).toBe('busy');
    db!.exec('COMMIT');
  });

  it('treats a database without a WAL (in memory) as scrubbed', () => {
    const memory = new Database(':memory:');
    open.push(memory);
    expect(truncateWal(memory)).toBe('done');
    expect(walHoldsFrames(':memory:')).toBe(false);
  });
});

describe('WalScrubber', () => {
  it('retries a busy scrub off the caller until the reader lets go, then tells its listeners', async () => {
    const [db] = open;
    const scrubber = new WalScrubber(db!, path, { firstDelayMs: 5, maxDelayMs: 20 });
    const done = jest.fn();
    scrubber.onDone(done);
    const reader = holdSnapshot();
    db!.prepare('INSERT INTO t VALUES (?)').run('more');

    expect(scrubber.request()).toBe('busy');
    expect(scrubber.pending).toMatchObject({ reason: expect.stringContaining(path) as string });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(done).not.toHaveBeenCalled();

    reader.exec('COMMIT');
    await scrubber.settled();
    expect(done).toHaveBeenCalledTimes(1);
    expect(scrubber.pending).toBeUndefined();
    expect(walSize()).toBe(0);
    scrubber.stop();
  });

  it('answers done at once and tells its listeners when nothing stands in the way', () => {
    const [db] = open;
    const scrubber = new WalScrubber(db!, path);
    const done = jest.fn();
    scrubber.onDone(done);
    expect(scrubber.request()).toBe('done');
    expect(done).toHaveBeenCalledTimes(1);
    expect(scrubber.pending).toBeUndefined();
  });

  it('stops retrying and releases waiters when stopped', async () => {
    const [db] = open;
    const scrubber = new WalScrubber(db!, path, { firstDelayMs: 5 });
    holdSnapshot();
    db!.prepare('INSERT INTO t VALUES (?)').run('more');
    expect(scrubber.request()).toBe('busy');
    const settled = scrubber.settled();
    scrubber.stop();
    await expect(settled).resolves.toBeUndefined();
  });
});
