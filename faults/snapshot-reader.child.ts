/**
 * A reader holding a snapshot, as a backup or a long export does: opens each SQLite file read
 * only, starts a read transaction on it (so no checkpoint can reset its WAL meanwhile), prints
 * `holding`, keeps the snapshots `holdMs`, ends them, prints `released` and exits.
 * Usage: node --import tsx faults/snapshot-reader.child.ts <holdMs> <file>...
 */
import Database from 'better-sqlite3';

const [holdText, ...files] = process.argv.slice(2);
const connections = files.map((file) => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.exec('BEGIN');
  // The first read of the transaction takes the snapshot.
  db.prepare('SELECT count(*) FROM sqlite_schema').get();
  return db;
});
process.stdout.write('holding\n');
setTimeout(() => {
  for (const db of connections) {
    db.exec('COMMIT');
    db.close();
  }
  process.stdout.write('released\n');
}, Number(holdText));
