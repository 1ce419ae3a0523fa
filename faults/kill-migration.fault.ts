/**
 * kill -9 during a migration: a child process (faults/migrate.child.ts) opens a copy of a
 * memledger 0.1.0 file (layout version 1, written with raw SQL by test/store/sqlite/sqlite-files.ts)
 * with the current store, which migrates it in place in one transaction; it is killed with
 * SIGKILL at a random moment within the migration's measured duration. Then the real
 * `memledger verify --all` opens the file (migrating again when the kill left it at version 1):
 * it must open and verify every time, with every event of the 0.1.0 file, and end at the current
 * layout with its migration record.
 */
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATION_FROM_1_KEY } from '../src/store/sqlite/sqlite.migrate.js';
import { SQLITE_SCHEMA_VERSION } from '../src/store/sqlite/sqlite.schema.js';
import { realisticLog, writeVersion1File } from '../test/store/sqlite/sqlite-files.js';
import {
  between,
  exited,
  killHard,
  seededRandom,
  sleep,
  spawnScript,
  tempDir,
  verifyCli,
  waitForLine,
  type FaultResult,
} from './support.js';

const TARGET = 'every killed file opens, verify passes, all events kept';

/** The file's layout version and whether SQLite finds it sound, read outside the store. */
function inspect(path: string): { version: string; integrity: string; migrationRecord: boolean } {
  const db = new Database(path);
  try {
    const meta = new Map(
      db
        .prepare<[], { key: string; value: string }>('SELECT key, value FROM memledger_meta')
        .all()
        .map((row) => [row.key, row.value]),
    );
    return {
      version: meta.get('schema_version') ?? 'none',
      integrity: String(db.pragma('integrity_check', { simple: true })),
      migrationRecord: meta.has(MIGRATION_FROM_1_KEY),
    };
  } finally {
    db.close();
  }
}

/** Starts the child on `path`; resolves once it is about to open the file. */
async function startMigration(path: string) {
  const child = spawnScript('migrate.child.ts', [path]);
  await waitForLine(child, /^opening$/);
  return { child, started: performance.now() };
}

/** Copies the pristine 0.1.0 file to `path` (no WAL: the pristine file is checkpointed). */
function freshCopy(pristine: string, path: string): string {
  copyFileSync(pristine, path);
  for (const suffix of ['-wal', '-shm'])
    if (existsSync(path + suffix)) throw new Error(`${path + suffix} left over`);
  return path;
}

/** Events per memory in `memledger verify --all` output (`<id>: ok: N events, ...`). */
const eventsVerified = (output: string) =>
  [...output.matchAll(/^[^:\n]+: ok: (\d+) events/gm)].reduce((sum, m) => sum + Number(m[1]), 0);

/** `trials` migrations of a 0.1.0 file of `events` events, each killed with SIGKILL part-way. */
export async function killDuringMigration(
  trials: number,
  events: number,
  seed = 3,
): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir('kill-migration');
  const pristine = join(temp.dir, 'pristine-0.1.0.db');
  const other = Math.floor(events / 10);
  writeVersion1File(pristine, {
    default: realisticLog(events - other),
    other: realisticLog(other, 1),
  });
  const figures = {
    fileMiB: Math.round(statSync(pristine).size / 2 ** 20),
    migrationMs: 0,
    killedBeforeCommit: 0,
    killedAfterCommit: 0,
    killedBeforeCommitWithWal: 0,
    maxWalMiBAtKill: 0,
    integrityFailures: 0,
    verifyFailures: 0,
    countMismatches: 0,
    notMigratedAfterVerify: 0,
    firstFailure: '',
  };
  const fail = (trial: number, what: string) => {
    if (figures.firstFailure === '') figures.firstFailure = `trial ${trial}: ${what}`;
  };
  try {
    // How long a migration takes here, so the kills land inside it.
    const calibration = await startMigration(freshCopy(pristine, join(temp.dir, 'calibrate.db')));
    await waitForLine(calibration.child, /^opened$/, 600_000);
    figures.migrationMs = Math.round(performance.now() - calibration.started);
    await exited(calibration.child);

    for (let trial = 0; trial < trials; trial++) {
      const path = freshCopy(pristine, join(temp.dir, `trial-${trial}.db`));
      const run = await startMigration(path);
      await sleep(between(random, 0, figures.migrationMs));
      const wal = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
      await killHard(run.child);
      const after = inspect(path);
      if (after.version === '1') figures.killedBeforeCommit += 1;
      else figures.killedAfterCommit += 1;
      if (after.version === '1' && wal > 0) figures.killedBeforeCommitWithWal += 1;
      figures.maxWalMiBAtKill = Math.max(figures.maxWalMiBAtKill, Math.round(wal / 2 ** 20));
      if (after.integrity !== 'ok') {
        figures.integrityFailures += 1;
        fail(trial, `integrity_check after the kill: ${after.integrity}`);
      }

      const cli = await verifyCli(path);
      const verified = eventsVerified(cli.output);
      if (cli.code !== 0) {
        figures.verifyFailures += 1;
        fail(trial, `memledger verify --all exited ${cli.code}: ${cli.output}`);
      } else if (verified !== events) {
        figures.countMismatches += 1;
        fail(trial, `verify saw ${verified} events, not ${events}`);
      }
      const end = inspect(path);
      if (end.version !== SQLITE_SCHEMA_VERSION || !end.migrationRecord || end.integrity !== 'ok') {
        figures.notMigratedAfterVerify += 1;
        fail(trial, `after verify: version ${end.version}, record ${end.migrationRecord}`);
      }
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    }
  } finally {
    temp.remove();
  }
  const failures =
    figures.integrityFailures +
    figures.verifyFailures +
    figures.countMismatches +
    figures.notMigratedAfterVerify;
  return {
    name: 'kill-sqlite-migration',
    size: `${trials} trials, ${events.toLocaleString('en-US')} events`,
    target: TARGET,
    passed: failures === 0 && figures.killedBeforeCommit > 0,
    summary: `${trials - failures} of ${trials} killed files opened and verified with all ${events.toLocaleString('en-US')} events (killed before the migration committed, file still at version 1: ${figures.killedBeforeCommit}, ${figures.killedBeforeCommitWithWal} of them with migration writes in the WAL; after it committed: ${figures.killedAfterCommit}); migration ${figures.migrationMs} ms`,
    figures: { trials, events, ...figures },
  };
}
