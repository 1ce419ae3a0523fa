/**
 * SQLite adapter overhead: the same appends through openSqliteStore and through raw
 * better-sqlite3 (same file settings: WAL, synchronous, one transaction per append).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encodeEvent } from '../src/store/codec.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { CREATE_SCHEMA } from '../src/store/sqlite/sqlite.schema.js';
import { report, syntheticLog, timeMs } from './support.js';

export async function benchSqliteAppend(
  appends = 5000,
  batch = 1,
  synchronous: 'FULL' | 'NORMAL' = 'NORMAL',
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-'));
  const events = syntheticLog(appends * batch, false);
  try {
    const raw = new Database(join(dir, 'raw.db'));
    raw.pragma('journal_mode = WAL');
    raw.pragma(`synchronous = ${synchronous}`);
    raw.exec(CREATE_SCHEMA);
    const insert = raw.prepare(
      'INSERT INTO events (memory_id, seq, id, type, payload) VALUES (?, ?, ?, ?, ?)',
    );
    const tx = raw.transaction((slice: typeof events, from: number) => {
      slice.forEach((event, i) => {
        const { type, data } = encodeEvent(event);
        insert.run('default', from + i, event.id, type, JSON.stringify(data));
      });
    });
    const rawMs = await timeMs(() => {
      for (let i = 0; i < events.length; i += batch) tx.immediate(events.slice(i, i + batch), i);
    });
    raw.close();

    const store = openSqliteStore({ path: join(dir, 'adapter.db'), synchronous });
    const log = store.log();
    const adapterMs = await timeMs(async () => {
      for (let i = 0; i < events.length; i += batch) await log.append(events.slice(i, i + batch));
    });
    await store.close();
    report(`sqlite-append-batch-${batch}-${synchronous}`, {
      appends,
      'events per append': batch,
      synchronous,
      'raw better-sqlite3 ms': rawMs,
      'adapter ms': adapterMs,
      'adapter appends/s': Math.round(appends / (adapterMs / 1000)),
      'adapter / raw time ratio': adapterMs / rawMs,
      'target ratio (DESIGN)': '<= 1.1-1.2',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
