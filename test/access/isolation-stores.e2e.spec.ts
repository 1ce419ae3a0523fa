/**
 * Invariant 11 over HTTP on every store adapter (in memory, a SQLite file, EventStoreDB through
 * the in-process test server): a key reaches only the memories and rights it was granted, what it
 * writes records its principal whatever the body claims, and a memory it may not read answers
 * exactly as one that does not exist. The full matrix of keys and routes runs on SQLite in
 * isolation-http.e2e.spec.ts; this is the same promise, adapter by adapter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteGrantStore, type GrantStore } from '../../src/access/index.js';
import { createMessage } from '../../src/core/index.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

/** One adapter: how to open a store of it, and what to release after. */
interface Adapter {
  readonly name: string;
  open(): Promise<{ store: MemoryStore; release(): Promise<void> }>;
}

const ADAPTERS: readonly Adapter[] = [
  {
    name: 'in-memory',
    open: async () => ({ store: openInMemoryStore(), release: async () => undefined }),
  },
  {
    name: 'SQLite',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'memledger-isolation-'));
      return {
        store: openSqliteStore({ path: join(dir, 'memledger.db') }),
        release: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'EventStoreDB (in-process test server)',
    open: async () => {
      const server: EsdbTestServer = await startEsdbTestServer();
      return {
        store: openEventStoreDbStore({ connectionString: server.connectionString }),
        release: () => server.close(),
      };
    },
  },
];

describe.each(ADAPTERS)('invariant 11 over HTTP on $name', (adapter) => {
  let store: MemoryStore;
  let release: () => Promise<void>;
  let grants: GrantStore;
  let server: RunningServer;
  let secret: string;
  let keyId: string;

  beforeAll(async () => {
    ({ store, release } = await adapter.open());
    await store.log('their-notes').append([createMessage({ speaker: 'bob', content: 'bob-only' })]);
    grants = openSqliteGrantStore({ path: ':memory:' });
    await grants.ready();
    const created = await grants.create(
      { principal: 'agent-7', memories: ['mine-*'], rights: ['read', 'write'] },
      { principal: 'test', via: 'local' },
    );
    ({ secret } = created);
    keyId = created.key.id;
    server = await startServer({
      logger: false,
      host: '127.0.0.1',
      port: 0,
      store: { kind: 'existing', store },
      access: { grants },
    });
  });
  afterAll(async () => {
    await server?.close();
    await grants?.close();
    await store?.close();
    await release?.();
  });

  const call = (route: string, body?: object) =>
    fetch(`${server.url}/api/memories/${route}`, {
      method: body ? 'POST' : 'GET',
      headers: {
        Authorization: `Bearer ${secret}`,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('invariant 11 — what a key writes records its principal, never what the body claims', async () => {
    const written = await call('mine-1/messages', {
      speaker: 'me',
      content: 'hello',
      actor: 'root',
    });
    expect(written.status).toBe(201);
    expect(await written.json()).toMatchObject({
      actor: 'root',
      recordedBy: { principal: 'agent-7', via: `key:${keyId}` },
    });
    const claimed = await call('mine-1/messages', {
      speaker: 'me',
      content: 'forged',
      recordedBy: { principal: 'admin', via: 'local' },
    });
    expect(claimed.status).toBe(400);
    expect(await store.log('mine-1').lastSeq()).toBe(0);
  });

  it('invariant 11 — a memory the key may not read answers exactly as one that does not exist, and nothing is written', async () => {
    // The answer names the memory asked for; with the name masked, both are the same bytes.
    const answer = async (memoryId: string, route: string) => {
      const response = await call(`${memoryId}/${route}`);
      return [response.status, (await response.text()).replaceAll(memoryId, '<memory>')];
    };
    for (const route of ['state', 'events', 'search?q=bob', 'checkpoint']) {
      const existing = await answer('their-notes', route);
      expect(existing).toEqual(await answer('nobody-at-all', route));
      expect(existing[0]).toBe(403);
      expect(existing[1]).not.toContain('bob-only');
    }
    const write = await call('their-notes/messages', { speaker: 'me', content: 'intrusion' });
    expect(write.status).toBe(403);
    expect(await write.text()).not.toContain('bob-only');
    expect(await store.log('their-notes').lastSeq()).toBe(0);
    expect(await store.log('nobody-at-all').lastSeq()).toBeNull();
  });
});
