/**
 * A smoke run of the erasure kill trials (faults/erasure-crash.fault.ts): a child killed with
 * SIGKILL right after the intent, right after the Erasure's append, right after the key's
 * destruction, and at a random moment, 3 times each, so the trial code cannot rot between full
 * runs (`npm run faults -- --only erasure-crash`: 50 kills at each point, figures in
 * RELIABILITY.md).
 */
import { jest } from '@jest/globals';
import { erasureCrash } from '../../faults/erasure-crash.fault.js';

jest.setTimeout(120_000);

describe('kill -9 during an erasure (3 kills at each point)', () => {
  it('leaves every item fully erased with its Erasure on record, or not erased with its key intact', async () => {
    const result = await erasureCrash(3);
    const f = result.figures;
    expect(f.firstFailure).toBe('');
    expect([f.torn, f.wrongSide, f.pendingAfterRepair, f.wordsInFiles]).toEqual([0, 0, 0, 0]);
    expect([f.killsBegin, f.killsAppend, f.killsComplete, f.killsRandom]).toEqual([3, 3, 3, 3]);
    // Each hook kill landed where it was aimed: before the append nothing is erased, after it
    // the repair completes the erasure the log holds.
    expect([f.keptBegin, f.erasedAppend, f.erasedComplete]).toEqual([3, 3, 3]);
    expect([f.repairedBegin, f.repairedAppend]).toEqual([3, 3]);
    expect(result.passed).toBe(true);
  });
});
