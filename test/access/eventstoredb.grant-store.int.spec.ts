/**
 * The EventStoreDB grant store against the in-process test server: grants and revocations are
 * events of the `memledger-access` stream, read on open and followed by subscription, so a
 * second instance sees the first one's changes.
 */
import { EventStoreDBClient, FORWARDS, START, type ResolvedEvent } from '@eventstore/db-client';
import {
  ACCESS_STREAM,
  openEventStoreDbGrantStore,
} from '../../src/access/eventstoredb.grant-store.js';
import { openGrantStore, type GrantStore } from '../../src/access/index.js';
import { isMemoryError } from '../../src/core/index.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

const by = { principal: 'operator', via: 'local' } as const;

async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('EventStoreDB grant store', () => {
  let server: EsdbTestServer;
  const open: GrantStore[] = [];
  const grants = async () => {
    const store = await openGrantStore({
      kind: 'eventstoredb',
      connectionString: server.connectionString,
    });
    open.push(store);
    return store;
  };
  beforeEach(async () => {
    server = await startEsdbTestServer();
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await server.close();
  });

  it('opens on a node without the stream, with nothing granted', async () => {
    const store = await grants();
    expect(store.everGranted).toBe(false);
    expect(store.keys()).toEqual([]);
  });

  it('records KeyGranted and KeyRevoked events, never the secret', async () => {
    const store = await grants();
    const { key, secret } = await store.create(
      { principal: 'agent-7', memories: ['team-*'], rights: ['read', 'recall'] },
      by,
    );
    await store.revoke(key.id, by);
    const client = EventStoreDBClient.connectionString(server.connectionString);
    try {
      const events: ResolvedEvent[] = [];
      for await (const e of client.readStream(ACCESS_STREAM, {
        fromRevision: START,
        direction: FORWARDS,
      }) as AsyncIterable<ResolvedEvent>)
        events.push(e);
      expect(events.map((e) => e.event?.type)).toEqual(['KeyGranted', 'KeyRevoked']);
      expect(events[0]!.event!.data).toMatchObject({
        keyId: key.id,
        principal: 'agent-7',
        memories: ['team-*'],
        rights: ['read', 'recall'],
        createdBy: by,
      });
      expect(JSON.stringify(events.map((e) => e.event?.data))).not.toContain(secret.slice(4));
    } finally {
      await client.dispose();
    }
  });

  it("sees another instance's grant and revocation, and tells listeners", async () => {
    const first = await grants();
    const second = await grants();
    const { key, secret } = await first.create(
      { principal: 'agent-7', memories: ['user-42'], rights: ['read'] },
      by,
    );
    await eventually(() => second.keyOfSecret(secret) !== undefined);
    const revoked: string[] = [];
    second.onRevoked((id) => revoked.push(id));
    await first.revoke(key.id, by);
    await eventually(() => revoked.length === 1);
    expect(second.keyOfSecret(secret)).toBeUndefined();
    const third = await grants();
    expect(third.keys().map((k) => [k.id, k.revokedAt !== null])).toEqual([[key.id, true]]);
  });

  it('answers ACCESS_KEY_UNKNOWN for a key never granted', async () => {
    const store = await grants();
    const error = await store.revoke('nope', by).catch((e: unknown) => e);
    expect(isMemoryError(error, 'ACCESS_KEY_UNKNOWN')).toBe(true);
  });

  it('follows the stream again after the node restarts', async () => {
    const watcher = await grants();
    await server.restart();
    const writer = openEventStoreDbGrantStore({ connectionString: server.connectionString });
    try {
      await writer.ready();
      const { secret } = await writer.create(
        { principal: 'after-restart', memories: ['*'], rights: ['read'] },
        by,
      );
      await eventually(() => watcher.keyOfSecret(secret) !== undefined, 10_000);
    } finally {
      await writer.close();
    }
  });
});
