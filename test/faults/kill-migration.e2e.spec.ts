/**
 * A smoke run of the fault suite's migration kill trials (faults/kill-migration.fault.ts) at a
 * small size, so the trial code cannot rot between full runs (`npm run faults -- --only
 * kill-sqlite-migration`: 20 trials of a 100,000-event file, figures in RELIABILITY.md).
 */
import { jest } from '@jest/globals';
import { killDuringMigration } from '../../faults/kill-migration.fault.js';

jest.setTimeout(120_000);

describe('kill -9 during the migration of a memledger 0.1.0 SQLite file (3 trials, 5,000 events)', () => {
  it('leaves a file that opens, passes memledger verify --all with every event, and ends migrated', async () => {
    const result = await killDuringMigration(3, 5_000);
    const f = result.figures;
    expect(f.firstFailure).toBe('');
    expect([f.integrityFailures, f.verifyFailures, f.countMismatches]).toEqual([0, 0, 0]);
    expect(f.notMigratedAfterVerify).toBe(0);
    // At least one kill landed before the migration committed, so it was really interrupted.
    expect(f.killedBeforeCommit).toBeGreaterThan(0);
    expect(result.passed).toBe(true);
  });
});
