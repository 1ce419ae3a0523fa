/**
 * The SQLite grant store on a real file: tables created in a new file and beside the event log,
 * insert-only, secrets kept as digests only, and another connection's grants and revocations
 * seen within its poll.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteGrantStore, secretDigest, type GrantStore } from '../../src/access/index.js';
import { isMemoryError } from '../../src/core/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const by = { principal: 'operator', via: 'local' } as const;

/** Resolves once `check` holds, polling every 10 ms (rejects after `ms`). */
async function eventually(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('SQLite grant store', () => {
  let dir: string;
  const open: GrantStore[] = [];
  const grants = (path: string) => {
    const store = openSqliteGrantStore({ path, pollMs: 20 });
    open.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-grants-'));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a new file, and the event store opens it afterwards with the grants kept', async () => {
    const path = join(dir, 'sub', 'memledger.db');
    const store = grants(path);
    expect(existsSync(path)).toBe(true);
    expect(store.everGranted).toBe(false);
    const { key, secret } = await store.create(
      { principal: 'agent-7', memories: ['user-42'], rights: ['read', 'recall'] },
      by,
    );
    const events = openSqliteStore({ path });
    await events.log('user-42').append([
      {
        kind: 'message',
        id: '0193a000-0000-7000-8000-000000000001',
        timestamp: '2026-01-01T00:00:00Z',
        seq: null,
        sessionId: null,
        source: 'test',
        actor: null,
        recordedBy: null,
        speaker: 'u',
        content: 'hi',
      },
    ]);
    await events.close();
    await store.close();
    const reopened = grants(path);
    expect(reopened.everGranted).toBe(true);
    expect(reopened.keyOfSecret(secret)).toEqual(key);
    expect(key).toMatchObject({
      principal: 'agent-7',
      memories: ['user-42'],
      rights: ['read', 'recall'],
      createdBy: by,
      revokedAt: null,
    });
  });

  it('stores only the digest of a secret, and its rows cannot be updated or deleted', async () => {
    const path = join(dir, 'memledger.db');
    const store = grants(path);
    const { key, secret } = await store.create(
      { principal: 'agent-7', memories: ['*'], rights: ['read'] },
      by,
    );
    await store.revoke(key.id, by);
    const raw = new Database(path);
    try {
      const text = JSON.stringify(raw.prepare('SELECT * FROM access_grants').all());
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(4));
      expect(text).toContain(secretDigest(secret));
      expect(() => raw.prepare('UPDATE access_grants SET rights = \'["admin"]\'').run()).toThrow(
        /append-only/,
      );
      expect(() => raw.prepare('DELETE FROM access_revocations').run()).toThrow(/append-only/);
    } finally {
      raw.close();
    }
  });

  it('refuses a bad grant, naming the field, and writes nothing', async () => {
    const store = grants(join(dir, 'memledger.db'));
    for (const input of [
      { principal: '', memories: ['*'], rights: ['read'] },
      { principal: 'a', memories: ['a*b'], rights: ['read'] },
      { principal: 'a', memories: ['*'], rights: ['fly'] },
      { principal: 'a', memories: [], rights: ['read'] },
    ]) {
      const error = await store.create(input as never, by).catch((e: unknown) => e);
      expect(isMemoryError(error, 'VALIDATION_FAILED')).toBe(true);
    }
    expect(store.keys()).toEqual([]);
    expect(store.everGranted).toBe(false);
  });

  it('answers ACCESS_KEY_UNKNOWN for a key never granted, and revokes a key once', async () => {
    const store = grants(join(dir, 'memledger.db'));
    const error = await store.revoke('nope', by).catch((e: unknown) => e);
    expect(isMemoryError(error, 'ACCESS_KEY_UNKNOWN')).toBe(true);
    const { key, secret } = await store.create(
      { principal: 'a', memories: ['*'], rights: ['read'] },
      by,
    );
    const first = await store.revoke(key.id, by);
    const again = await store.revoke(key.id, { principal: 'someone-else', via: 'local' });
    expect(again).toEqual(first);
    expect(first.revokedBy).toEqual(by);
    expect(store.keyOfSecret(secret)).toBeUndefined();
    expect(store.everGranted).toBe(true);
  });

  it("sees another connection's grant and revocation within its poll, and tells listeners", async () => {
    const path = join(dir, 'memledger.db');
    const server = grants(path);
    const cli = grants(path);
    const { key, secret } = await cli.create(
      { principal: 'agent-7', memories: ['user-42'], rights: ['read'] },
      by,
    );
    await eventually(() => server.keyOfSecret(secret) !== undefined);
    const revoked: string[] = [];
    server.onRevoked((id) => revoked.push(id));
    await cli.revoke(key.id, by);
    await eventually(() => revoked.length === 1);
    expect(revoked).toEqual([key.id]);
    expect(server.keyOfSecret(secret)).toBeUndefined();
  });
});
