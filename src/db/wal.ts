/** Write-ahead-log housekeeping shared by every SQLite file memledger writes. */
import type Database from 'better-sqlite3';

/**
 * After an erasure: copies the WAL into the database and truncates it, so no earlier page image
 * holding the erased words survives in the -wal file. Best effort: a reader holding an old
 * snapshot keeps the WAL from being reset until it ends (the next erasure, or the last close,
 * checkpoints again); the words are already gone from every live page.
 */
export function scrubWal(db: Database.Database): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or closed: nothing more to do now.
  }
}
