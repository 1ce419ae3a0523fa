/**
 * SQLite files for the layout tests: a file in memledger 0.1.0's layout (version 1) written
 * with raw SQL, a realistic mix of events, and a way to read a memory back as a replayed state.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  replay,
  type MemoryEvent,
  type MemoryState,
  type Sequenced,
} from '../../../src/core/index.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { readAll } from '../../support/collect.js';
import { asVersion1Fields } from '../../support/as-read-today.js';

/** The committed file written by memledger 0.1.0, and its expected states per memory. */
export const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'sqlite-0.1.0.db');
export const FIXTURE_STATES = join(FIXTURE, '..', 'sqlite-0.1.0.expected.json');

/** Copies the 0.1.0 fixture to `path` (tests never open the committed file itself). */
export const copyFixture = (path: string): string => (copyFileSync(FIXTURE, path), path);

/** memledger 0.1.0's layout, verbatim: a frozen record of the format, not the code's current one. */
const VERSION_1_SCHEMA = `
CREATE TABLE memledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE events (
  memory_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL,
  payload TEXT NOT NULL, PRIMARY KEY (memory_id, seq), UNIQUE (memory_id, id)
) STRICT, WITHOUT ROWID;
CREATE TABLE deletions (
  memory_id TEXT NOT NULL, target_id TEXT NOT NULL, deletion_id TEXT NOT NULL,
  deletion_seq INTEGER NOT NULL, PRIMARY KEY (memory_id, target_id)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
CREATE TRIGGER deletions_append_only_update BEFORE UPDATE ON deletions
  BEGIN SELECT RAISE(ABORT, 'memledger deletions are append-only'); END;
CREATE TRIGGER deletions_append_only_delete BEFORE DELETE ON deletions
  BEGIN SELECT RAISE(ABORT, 'memledger deletions are append-only'); END;
INSERT INTO memledger_meta (key, value) VALUES ('schema_version', '1');
`;

const WIRE_TYPES = {
  message: 'Message',
  document: 'Document',
  recall: 'Recall',
  deletion: 'Deletion',
  erasure: 'Erasure',
};

/** A row of 0.1.0's `events`, as the 0.1.0 store wrote one (or as a hand-written insert did). */
export interface Version1Row {
  readonly memoryId: string;
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  readonly payload: string;
}

/** The 0.1.0 row of a sequenced event. */
export function version1Row(memoryId: string, event: Sequenced): Version1Row {
  const { seq, ...data } = event;
  return {
    memoryId,
    seq,
    id: event.id,
    type: WIRE_TYPES[event.kind],
    payload: JSON.stringify(asVersion1Fields(data)),
  };
}

/**
 * Writes a 0.1.0-layout file at `path` holding `logs` (memory id -> its sequenced events) and
 * the extra raw `rows`, with the guard index 0.1.0 kept for each Deletion.
 */
export function writeVersion1File(
  path: string,
  logs: Readonly<Record<string, readonly Sequenced[]>>,
  rows: readonly Version1Row[] = [],
): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(VERSION_1_SCHEMA);
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
    const deleted = db.prepare('INSERT INTO deletions VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const [memoryId, events] of Object.entries(logs)) {
        for (const event of events) {
          const row = version1Row(memoryId, event);
          insert.run(memoryId, row.seq, row.id, row.type, row.payload);
          if (event.kind === 'deletion')
            for (const target of event.targets) deleted.run(memoryId, target, event.id, event.seq);
        }
      }
      for (const r of rows) insert.run(r.memoryId, r.seq, r.id, r.type, r.payload);
    })();
  } finally {
    db.close();
  }
}

/**
 * `n` sequenced events: messages of ~200 characters, documents of ~1 KB (one in four), a recall
 * of three visible items every 10th event, a deletion of one every 20th. Ids and times are fixed.
 */
export function realisticLog(n: number, seed = 0): Sequenced[] {
  let next = 0;
  const defaults = {
    newId: () =>
      `0193d${seed.toString(16).padStart(3, '0')}-0000-7000-8000-${(next++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 1, 1) + next * 1500),
  };
  const text = (i: number, chars: number) =>
    `Note ${i}: ${'the ingest worker restarts before noon, and the deploy key rotates on Fridays — ça va? '.repeat(Math.ceil(chars / 90))}`.slice(
      0,
      chars,
    );
  const events: Sequenced[] = [];
  const visible: string[] = [];
  for (let i = 0; i < n; i++) {
    let event: MemoryEvent;
    if (i % 20 === 19 && visible.length > 10) {
      const [target] = visible.splice((i * 7) % visible.length, 1);
      event = createDeletion({ targets: [target!], reason: 'user asked to forget' }, defaults);
    } else if (i % 10 === 9 && visible.length > 3) {
      event = createRecall({ query: `deploy key ${i}`, recalled: visible.slice(-3) }, defaults);
    } else if (i % 4 === 0) {
      event = createDocument({ name: `doc-${i}.md`, text: text(i, 1000) }, defaults);
      visible.push(event.id);
    } else {
      event = createMessage(
        { speaker: i % 2 ? 'assistant' : 'user', content: text(i, 200), sessionId: `s-${i >> 6}` },
        defaults,
      );
      visible.push(event.id);
    }
    events.push({ ...event, seq: i });
  }
  return events;
}

/** The replayed state of one memory of `store`, as JSON (how the expected states are kept). */
export async function stateOf(store: MemoryStore, memoryId: string): Promise<unknown> {
  return asJson(replay(await readAll(store.log(memoryId))));
}

/** A state as plain JSON, for comparison with a committed one. */
export const asJson = (state: MemoryState): unknown => JSON.parse(JSON.stringify(state));
