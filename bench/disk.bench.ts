/**
 * SQLite disk footprint: bytes on disk per event (the file after a checkpoint: log, indexes and
 * guard tables; then the same with the read models and the search index in the file) against
 * the event's JSON payload bytes, for a realistic mix of messages (~200 characters), documents
 * (~1 KB), recalls and deletions.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  type MemoryEvent,
} from '../src/core/index.js';
import { openMemledger } from '../src/memory/index.js';
import { encodeEvent } from '../src/store/codec.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { report, words } from './support.js';

/** Where a mix's recalls and deletions find their targets among the visible items. */
export type TargetSpread = 'recent' | 'anywhere';

/**
 * `n` valid events: 60 % messages of ~200 characters, 25 % documents of ~1 KB, a recall of
 * three visible items every 10th event, a deletion of one visible item every 20th. Recalls name
 * the three latest items (`recent`: an agent recalling what it was just told) or three drawn
 * from everything visible (`anywhere`: each a row on a page the append did not otherwise touch).
 */
export function diskMix(n: number, spread: TargetSpread = 'recent'): MemoryEvent[] {
  let next = 0;
  const defaults = {
    newId: () => `0193c000-0000-7000-8000-${(next++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1) + next * 1500),
  };
  const events: MemoryEvent[] = [];
  const visible: string[] = [];
  const drawn = (i: number) =>
    [1, 2, 3].map((k) => visible[(i * 7919 * k + k * 104_729) % visible.length]!);
  for (let i = 0; i < n; i++) {
    let event: MemoryEvent;
    if (i % 20 === 19 && visible.length > 10) {
      const [target] = visible.splice((i * 7) % visible.length, 1);
      event = createDeletion({ targets: [target!], reason: 'user asked to forget' }, defaults);
    } else if (i % 10 === 9 && visible.length > 3) {
      const recalled = spread === 'recent' ? visible.slice(-3) : [...new Set(drawn(i))];
      event = createRecall({ query: words(i, 3), recalled }, defaults);
    } else if (i % 4 === 0) {
      event = createDocument({ name: `doc-${i}.md`, text: words(i, 160) }, defaults);
      visible.push(event.id);
    } else {
      event = createMessage(
        { speaker: i % 2 ? 'assistant' : 'user', content: words(i, 32), sessionId: `s-${i >> 6}` },
        defaults,
      );
      visible.push(event.id);
    }
    events.push(event);
  }
  return events;
}

/** The JSON payload bytes of an event as memledger 0.1.0 stored it (the event without seq). */
export const payloadBytes = (event: MemoryEvent): number =>
  Buffer.byteLength(JSON.stringify(encodeEvent(event).data));

/** Bytes per table and index of a closed SQLite file, from the dbstat virtual table. */
export function bytesByObject(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare<[], { name: string; bytes: number }>(
        'SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC',
      )
      .all();
    return Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
  } finally {
    db.close();
  }
}

/** Writes `n` events of {@link diskMix} through the SQLite store and reports bytes per event. */
export async function benchDisk(n = 100_000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-disk-'));
  try {
    const events = diskMix(n);
    const payload = events.reduce((sum, e) => sum + payloadBytes(e), 0);
    /** Writes the events and returns the file's size once closed (the WAL checkpointed in). */
    const fileOf = async (name: string, withReadModels: boolean) => {
      const path = join(dir, name);
      const store = openSqliteStore({ path, synchronous: 'NORMAL' });
      const memledger = withReadModels ? openMemledger({ store }) : undefined;
      const log = store.log();
      for (let i = 0; i < events.length; i += 500) await log.append(events.slice(i, i + 500));
      // The search index follows the appends before a search: bring it in before measuring.
      if (memledger) await (await memledger.memory()).search('indexed');
      // Closing the last connection checkpoints the WAL into the file and removes it.
      if (memledger) await memledger.close();
      else await store.close();
      return { path, bytes: statSync(path).size };
    };
    const log = await fileOf('log.db', false);
    const all = await fileOf('with-read-models.db', true);
    const figures: Record<string, number | string> = {
      events: n,
      'JSON payload bytes per event (baseline)': payload / n,
      'log file bytes per event': log.bytes / n,
      'log / payload ratio': log.bytes / payload,
      'log target': '<= 1.3',
      'log + read models + search bytes per event': all.bytes / n,
      'log + read models + search / payload ratio': all.bytes / payload,
      'log + read models + search target': '<= 3',
    };
    for (const [name, bytes] of Object.entries(bytesByObject(all.path)))
      figures[`  ${name} bytes per event`] = bytes / n;
    report('sqlite-disk', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
