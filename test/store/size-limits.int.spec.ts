/**
 * Each store's size limits (LIMITS.eventBytes / appendBytes, the README's limits table): the same
 * document just under and just over each store's event limit is accepted, and refused with
 * EVENT_TOO_LARGE naming the limit with nothing written; an append larger than EventStoreDB's
 * maximum append size is refused whole, never split.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryError, LIMITS, type MemoryEvent } from '../../src/core/index.js';
import {
  appendLimitsOf,
  eventSize,
  formatBytes,
  splitByBytes,
} from '../../src/store/append-input.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { doc, message } from '../support/events.js';

// Documents up to 16 MiB are built and stored.
jest.setTimeout(120_000);

let dir: string;
let server: EsdbTestServer;
const stores: MemoryStore[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-limits-'));
  server = await startEsdbTestServer();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const opened = (store: MemoryStore): MemoryStore => {
  stores.push(store);
  return store;
};
const factories: [string, number, () => MemoryStore][] = [
  ['in-memory', LIMITS.eventBytes.inMemory, () => opened(openInMemoryStore())],
  [
    'SQLite',
    LIMITS.eventBytes.sqlite,
    () => opened(openSqliteStore({ path: join(dir, `limits-${files++}.db`) })),
  ],
  [
    'EventStoreDB',
    LIMITS.eventBytes.eventstoredb,
    () =>
      opened(
        openEventStoreDbStore(
          { connectionString: server.connectionString },
          { streamPrefix: `limits-${files++}-` },
        ),
      ),
  ],
];

/**
 * A document of exactly `bytes` bytes as JSON. Escaped control characters (six bytes each) reach
 * 16 MiB within the 4,000,000 characters a text may hold.
 */
function documentOf(bytes: number): MemoryEvent {
  const base = doc('a');
  const missing = bytes - eventSize(base);
  const escaped = Math.floor(missing / 6);
  const event = doc(`a${'\u0001'.repeat(escaped)}${'x'.repeat(missing - 6 * escaped)}`);
  expect(eventSize(event)).toBe(bytes);
  return event;
}

describe.each(factories)('size limit of one event on %s', (_, limit, open) => {
  it('names the documented limit', () => {
    expect(appendLimitsOf(open().log('sized')).eventBytes).toBe(limit);
  });

  it('accepts a document of exactly the limit', async () => {
    const log = open().log('at-limit');

    const [stored] = await log.append([documentOf(limit)]);

    expect(stored?.seq).toBe(0);
  });

  it('refuses a document one byte over the limit with EVENT_TOO_LARGE naming it, writing nothing', async () => {
    const log = open().log('over-limit');
    const over = documentOf(limit + 1);

    const error = await log.append([message('before it, in the same append'), over]).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(isMemoryError(error, 'EVENT_TOO_LARGE')).toBe(true);
    expect((error as Error).message).toContain(`at most ${formatBytes(limit)}`);
    expect((error as Error).message).toContain(over.id);
    expect(await log.lastSeq()).toBeNull();
  });
});

describe('EventStoreDB append size', () => {
  const open = factories[2]![2];
  const fourKb = (n: number) => message(`${n} ${'m'.repeat(4096)}`);

  it('refuses one append larger than the maximum append size whole, with PAYLOAD_TOO_LARGE naming it', async () => {
    const log = open().log('big-append');
    const events = Array.from({ length: 300 }, (_, n) => fourKb(n));

    const error = await log.append(events).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(isMemoryError(error, 'PAYLOAD_TOO_LARGE')).toBe(true);
    expect((error as Error).message).toContain('at most 1,048,576 bytes (1 MiB)');
    expect(await log.lastSeq()).toBeNull();
  });

  it('appends the same events split by splitByBytes, each batch within the limit', async () => {
    const log = open().log('split-append');
    const events = Array.from({ length: 300 }, (_, n) => fourKb(n));

    const batches = splitByBytes(events, (e) => e, appendLimitsOf(log));
    for (const batch of batches) await log.append(batch);

    expect(batches.length).toBeGreaterThan(1);
    expect(await log.lastSeq()).toBe(299);
  });

  it('lowers its limits to the maximum append size a server names when it refuses an append', async () => {
    const small = await startEsdbTestServer({ maxAppendSize: 512 * 1024 });
    try {
      const store = opened(openEventStoreDbStore({ connectionString: small.connectionString }));
      const log = store.log('learns');
      const events = Array.from({ length: 200 }, (_, n) => fourKb(n));

      const error = await log.append(events).then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(isMemoryError(error, 'PAYLOAD_TOO_LARGE')).toBe(true);
      expect((error as Error).message).toContain('524,288 bytes');
      expect(appendLimitsOf(log).appendBytes).toBe(512 * 1024);
      expect(await log.lastSeq()).toBeNull();
    } finally {
      await small.close();
    }
  });

  it('fails an append that misses its deadline with STORE_UNAVAILABLE naming the deadline, and a retry writes it once', async () => {
    const store = opened(
      openEventStoreDbStore(
        { connectionString: server.connectionString },
        { deadlineMs: 1, streamPrefix: 'deadline-' },
      ),
    );
    const events = Array.from({ length: 200 }, (_, n) => fourKb(n));

    const error = await store
      .log('late')
      .append(events)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const retry = opened(
      openEventStoreDbStore(
        { connectionString: server.connectionString },
        { streamPrefix: 'deadline-' },
      ),
    ).log('late');
    await retry.append(events);

    expect(isMemoryError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain('deadline of 1 ms');
    expect(await retry.lastSeq()).toBe(199);
  });
});
