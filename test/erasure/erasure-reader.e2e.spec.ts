/**
 * A smoke run of the reader fault (faults/erasure-reader.fault.ts): a reader holds a snapshot of
 * every file that can hold words across a delete-and-erase, the server is killed (SIGKILL) while
 * it holds and started again, so the check cannot rot between full runs (`npm run faults --
 * --only erasure-reader,erasure-reader-esdb`: an 8 s reader, figures in RELIABILITY.md).
 */
import { jest } from '@jest/globals';
import { erasureReader } from '../../faults/erasure-reader.fault.js';

jest.setTimeout(120_000);

describe.each(['sqlite', 'eventstoredb'] as const)(
  'a reader holding a snapshot across an erasure (%s)',
  (kind) => {
    it('answers at once with the clean-up pending, never freezes other requests, and leaves no erased word in any file after kill -9 and restart', async () => {
      const result = await erasureReader(kind, 2500);
      const f = result.figures;
      expect([f.status, f.cleanupAnswered]).toEqual([201, 'pending']);
      // The busy timeout is 5 s: a request that waited for the reader would take seconds.
      expect(f.maxGetMs).toBeLessThan(1000);
      expect(f.eraseMs).toBeLessThan(1000);
      expect([f.pendingAfter, f.filesWithWords]).toEqual([0, 0]);
      expect(result.passed).toBe(true);
    });
  },
);
