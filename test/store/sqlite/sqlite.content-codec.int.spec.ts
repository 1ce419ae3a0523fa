/**
 * Sealing as the content codec the SQLite adapter applies (src/store/content-codec.ts): the
 * projections inside an append's transaction get the caller's plain event beside the sealed row
 * the adapter just wrote, with no key opened for it; reads for projections open the words and
 * keep the stored form sealed; idempotency keeps its meaning on sealed rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createMessage, isMemoryError, type Sequenced } from '../../../src/core/index.js';
import { masterKeyFromBytes, openSqliteKeyStore, type KeyStore } from '../../../src/keys/index.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import type { ProjectedEvent } from '../../../src/store/projection.port.js';
import { sealedStore, type SealedMemoryStore } from '../../../src/store/sealed/sealed-store.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite.event-log.js';

describe('SQLite store with the sealing codec', () => {
  let dir: string;
  let path: string;
  let keys: KeyStore;
  let store: SealedMemoryStore;
  /** Key lookups (what opening sealed words costs), counted on the real key store. */
  let lookups: number;
  /** What the store's append hook was handed, per append. */
  let handed: (readonly ProjectedEvent[])[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-codec-'));
    path = join(dir, 'memledger.db');
    keys = openSqliteKeyStore(`${path}.keys`, {
      masterKey: masterKeyFromBytes(randomBytes(32)),
      create: true,
    });
    const lookup = keys.lookup.bind(keys);
    lookups = 0;
    keys.lookup = (memoryId, ids) => {
      lookups++;
      return lookup(memoryId, ids);
    };
    store = sealedStore(openSqliteStore({ path }), keys);
    await store.ready;
    handed = [];
    store.embedded!.onAppend((_memoryId, written) => void handed.push(written));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const storedRow = (seq: number) => {
    const db = new Database(path, { readonly: true });
    try {
      return db
        .prepare<[number], { payload: string }>('SELECT payload FROM event_log WHERE seq = ?')
        .get(seq)!;
    } finally {
      db.close();
    }
  };

  it('hands the projections of an append the caller’s words beside the sealed row it wrote, opening no key', async () => {
    const message = createMessage({ speaker: 'user', content: 'the words as given' });
    const [stored] = await store.log('m').append([message]);

    expect(stored).toMatchObject({ seq: 0, content: 'the words as given' });
    expect(handed).toHaveLength(1);
    const [projected] = handed[0]!;
    expect(projected!.event).toMatchObject({
      id: message.id,
      seq: 0,
      content: 'the words as given',
    });
    expect(projected!.stored.type).toBe('Message');
    expect(projected!.stored.body).not.toHaveProperty('content');
    expect(projected!.stored.body.sealed).toMatch(/^v1\./);
    expect(JSON.parse(storedRow(0).payload)).toEqual(projected!.stored.body);
    expect(storedRow(0).payload).not.toContain('the words as given');
    expect(lookups).toBe(0);
  });

  it('reads events for the projections with the words opened and the stored form sealed', async () => {
    const message = createMessage({ speaker: 'user', content: 'read back for a page' });
    await store.log('m').append([message]);

    const [projected] = store.embedded!.projectedRange('m', 0, 0);
    expect(projected!.event).toMatchObject({ id: message.id, content: 'read back for a page' });
    expect(projected!.stored.body.sealed).toMatch(/^v1\./);
    const page = store.embedded!.eventsAt('m', [0]);
    expect(page.get(0)).toMatchObject({ id: message.id, content: 'read back for a page' });
    expect(lookups).toBe(2);
  });

  it('answers a retried append as stored with the caller’s words, writing nothing; other words under the id are ID_CONFLICT', async () => {
    const message = createMessage({ speaker: 'user', content: 'once' });
    const log = store.log('m');
    const [first] = await log.append([message]);
    const [again] = await log.append([message]);

    expect(again).toEqual(first);
    expect(handed).toHaveLength(1);
    expect(await log.lastSeq()).toBe(0);
    const other = { ...message, content: 'other words' };
    const refused = await log.append([other]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isMemoryError(refused, 'ID_CONFLICT')).toBe(true);
    expect(await log.lastSeq()).toBe(0);
    expect(((await log.get(message.id)) as Sequenced & { content: string }).content).toBe('once');
  });

  it('refuses to seal a store that takes no content codec, naming it', async () => {
    const inner = openSqliteStore({ path: join(dir, 'other.db') });
    const noCodec: MemoryStore = { ...inner, description: 'a custom store' };
    delete (noCodec as { withCodec?: unknown }).withCodec;
    try {
      expect(() => sealedStore(noCodec, keys)).toThrow(
        expect.objectContaining({
          code: 'ERASURE_UNAVAILABLE',
          message: expect.stringContaining('a custom store') as unknown,
        }) as Error,
      );
    } finally {
      await inner.close();
    }
  });
});
