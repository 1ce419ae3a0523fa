/**
 * What `memledger verify` says about the erasures' clean-up: whether opening the store found an
 * erasure whose files were not scrubbed yet (a crash between its commit and its scrub), and
 * whether every file is scrubbed now.
 */
import type { CleanupOnOpen, ErasureCleanupStatus } from '../../store/sealed/erasure-cleanup.js';

/** The code of a clean-up still pending when verify ends. */
export const CLEANUP_PENDING = 'ERASURE_CLEANUP_PENDING';

/**
 * One line, or nothing when there was nothing to clean up. Unsound only while a clean-up is
 * still pending: old page images may still hold erased words.
 */
export function cleanupReport(
  found: CleanupOnOpen,
  now: ErasureCleanupStatus,
): { line: string; sound: boolean } | undefined {
  if (found.leftPending === 0 && now.state === 'done') return undefined;
  if (now.state === 'done') {
    const what = `${found.leftPending} erasure clean-up(s) left pending by a process that stopped`;
    return { line: `erasure clean-up: ok: found ${what}; every file is scrubbed now`, sound: true };
  }
  return {
    line:
      `erasure clean-up: violation [${CLEANUP_PENDING}]: pending since ${now.since} (${now.reason}); ` +
      'erased words may remain in old page images until it completes: run again with --finish-cleanup',
    sound: false,
  };
}
