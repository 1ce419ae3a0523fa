/**
 * A migration killed part-way: the process opening a 0.1.0 file of 20,000 events is killed
 * with SIGKILL while the migration writes; the file must open (migrating again when needed)
 * and replay to the same states.
 */
import { jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { replay } from '../../../src/core/index.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import { message } from '../../support/events.js';
import { asJson, realisticLog, stateOf, writeVersion1File } from './sqlite-files.js';
import { SQLITE_SCHEMA_VERSION } from '../../../src/store/sqlite/sqlite.schema.js';

jest.setTimeout(180_000);

const child = join(import.meta.dirname, 'open-store.child.ts');
const digest = (state: unknown) => createHash('sha256').update(JSON.stringify(state)).digest('hex');

/** What one trial saw when its child died. */
interface Outcome {
  /** Bytes in the WAL when the kill was sent (0: before the migration wrote anything). */
  readonly walBytesAtKill: number;
  /** The child finished on its own before the kill point. */
  readonly finished: boolean;
}

/**
 * Opens `path` in a child process and kills it with SIGKILL once its WAL holds `walBytes`
 * (or, for 0, `delayMs` after it starts opening).
 */
function openAndKill(path: string, walBytes: number, delayMs = 0): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let killedAt: number | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    const walSize = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    const kill = () => {
      if (killedAt !== undefined) return;
      killedAt = walSize();
      proc.kill('SIGKILL');
    };
    proc.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('opening')) return;
      if (walBytes === 0) setTimeout(kill, delayMs);
      else timer = setInterval(() => walSize() >= walBytes && kill(), 1);
    });
    proc.on('error', reject);
    proc.on('exit', (_code, signal) => {
      clearInterval(timer);
      resolve({ walBytesAtKill: killedAt ?? -1, finished: signal !== 'SIGKILL' });
    });
  });
}

const versionOf = (path: string) => {
  const db = new Database(path);
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return db
      .prepare<[], string>("SELECT value FROM memledger_meta WHERE key = 'schema_version'")
      .pluck()
      .get();
  } finally {
    db.close();
  }
};

describe('SQLite migration killed with SIGKILL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-crash-'));
  const pristine = join(dir, 'pristine-0.1.0.db');
  const logs = { default: realisticLog(16_000), other: realisticLog(4_000, 1) };
  const expected = Object.fromEntries(
    Object.entries(logs).map(([id, events]) => [id, digest(asJson(replay(events)))]),
  );
  beforeAll(() => writeVersion1File(pristine, logs));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Kill points: while it reads the old layout, as the WAL starts, a third and two thirds in.
  const trials = [
    { walBytes: 0, delayMs: 20 },
    { walBytes: 1 },
    { walBytes: 4_000_000 },
    { walBytes: 8_000_000 },
  ];
  const outcomes: { outcome: Outcome; versionAfterKill: string | undefined }[] = [];

  it.each(trials)(
    'leaves a file that opens and replays to the same states (kill at WAL >= $walBytes bytes)',
    async ({ walBytes, delayMs }) => {
      const path = join(dir, `trial-${walBytes}.db`);
      copyFileSync(pristine, path);
      const outcome = await openAndKill(path, walBytes, delayMs);
      const versionAfterKill = versionOf(path);
      outcomes.push({ outcome, versionAfterKill });
      // Either nothing of the migration is in the file, or all of it.
      expect(['1', '2']).toContain(versionAfterKill);

      const store = openSqliteStore({ path });
      try {
        expect(await store.memoryIds()).toEqual(['default', 'other']);
        for (const [memoryId, state] of Object.entries(expected))
          expect(digest(await stateOf(store, memoryId))).toBe(state);
        const [next] = await store.log().append([message('after the crash')]);
        expect(next!.seq).toBe(16_000);
      } finally {
        await store.close();
      }
      expect(versionOf(path)).toBe(SQLITE_SCHEMA_VERSION);
    },
  );

  it('killed at least one migration part-way, the file still at version 1 afterwards', () => {
    expect(outcomes).toHaveLength(trials.length);
    expect(
      outcomes.some(
        ({ outcome, versionAfterKill }) =>
          !outcome.finished && outcome.walBytesAtKill > 0 && versionAfterKill === '1',
      ),
    ).toBe(true);
  });
});
