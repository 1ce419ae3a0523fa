/**
 * An event written by a newer memledger (a schema version this release does not read) is
 * refused on every store with EVENT_VERSION_UNSUPPORTED, naming where it is and its version —
 * never skipped, never guessed at.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer } from '../support/esdb-test-server/index.js';
import { readAll } from '../support/collect.js';
import { message } from '../support/events.js';

const dir = mkdtempSync(join(tmpdir(), 'memledger-future-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const unsupported = (version: number) =>
  expect.objectContaining({
    code: 'EVENT_VERSION_UNSUPPORTED',
    message: expect.stringContaining(`schema version ${version}`) as string,
  }) as Error;

describe('an event of a schema version newer than this release', () => {
  it('is refused by the SQLite store on read, with the row left as it is', async () => {
    const path = join(dir, 'future.db');
    const store = openSqliteStore({ path });
    await store.log().append([message('written now')]);
    await store.close();
    const raw = new Database(path);
    raw
      .prepare(
        `INSERT INTO event_log (memory, seq, id, type, version, payload)
         VALUES (1, 1, randomblob(16), 1, 9, '{"speaker":"user","content":"from the future","timestamp":"2030-01-01T00:00:00.000Z","sessionId":null,"source":"x","actor":null,"hologram":true}')`,
      )
      .run();
    raw.close();
    const reopened = openSqliteStore({ path });
    try {
      await expect(readAll(reopened.log())).rejects.toThrow(unsupported(9));
      expect(await reopened.log().lastSeq()).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it('is refused by the EventStoreDB store on read (version in the event metadata)', async () => {
    const server = await startEsdbTestServer();
    const client = EventStoreDBClient.connectionString(server.connectionString);
    const store = openEventStoreDbStore({ client });
    try {
      await store.log('future').append([message('written now')]);
      await client.appendToStream('memory-future', [
        jsonEvent({
          type: 'Message',
          data: { speaker: 'user', content: 'from the future', timestamp: '2030-01-01T00:00:00Z' },
          metadata: { schemaVersion: 4 },
        }),
      ]);
      await expect(readAll(store.log('future'))).rejects.toThrow(unsupported(4));
    } finally {
      await store.close();
      await client.dispose();
      await server.close();
    }
  });
});
