import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import { describeEventLogContract } from '../../store-contract/index.js';

let dir = '';
const file = () => join(dir, 'memledger.db');

describeEventLogContract('SQLite', {
  open: async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-sqlite-'));
    return openSqliteStore({ path: file(), pollMs: 20 });
  },
  reopen: async (store) => {
    await store.close();
    return openSqliteStore({ path: file(), pollMs: 20 });
  },
  // A second connection on the same file stands in for another process (BEGIN IMMEDIATE serializes both).
  openPeer: async () => openSqliteStore({ path: file(), pollMs: 20 }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});
