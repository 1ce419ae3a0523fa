/** The SQLite layout's footprint: bytes on disk per event against the event's JSON payload. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';
import { realisticLog } from './sqlite-files.js';

describe('SQLite file size', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'memledger-disk-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stays under 1.3 times the JSON payload per event for messages, documents, recalls and deletions', async () => {
    const path = join(dir, 'disk.db');
    const events = realisticLog(10_000);
    const store = openSqliteStore({ path, synchronous: 'NORMAL' });
    for (let i = 0; i < events.length; i += 100)
      await store.log().append(events.slice(i, i + 100).map((e) => ({ ...e, seq: null })));
    // Closing the only connection checkpoints the WAL into the file and removes it.
    await store.close();
    // The payload as memledger 0.1.0 stored it: the event's JSON without seq.
    const payload = events.reduce(
      (sum, { seq: _seq, ...data }) => sum + Buffer.byteLength(JSON.stringify(data)),
      0,
    );
    const kinds = new Set(events.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['deletion', 'document', 'message', 'recall']);
    expect(statSync(path).size / payload).toBeLessThan(1.3);
  });
});
