/** Counts commits in a SQLite WAL file, to see how many transactions some writes took. */
import { existsSync, readFileSync } from 'node:fs';

/**
 * Commits in the WAL of the database at `path`: frames whose header gives a database size after
 * commit (non-zero) and whose salts match the WAL header's (frames left from before a restart of
 * the WAL do not). Only meaningful while no checkpoint restarted the WAL in between.
 */
export function walCommits(path: string): number {
  if (!existsSync(`${path}-wal`)) return 0;
  const wal = readFileSync(`${path}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(wal.subarray(16, 24))) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits += 1;
  }
  return commits;
}
