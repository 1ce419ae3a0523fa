/**
 * The isolation matrix over HTTP: four keys x four memories x every `/api` route of a memory,
 * the event stream (`?access_token=` too) and the export. Each allowed call works and records
 * its principal; every other one is 403 `FORBIDDEN` naming the missing right, exactly what the
 * same key gets for a memory that does not exist, holds no content or id, and writes nothing.
 */
import type { Right } from '../../src/access/index.js';
import { openSse } from '../http/http-app.js';
import {
  expectNothingRevealed,
  forbiddenBody,
  GHOST,
  KEY_SPECS,
  MEMORIES,
  missingRight,
  startMatrix,
  WITH_EMBEDDER,
  type KeyName,
  type Matrix,
  type MatrixKey,
} from './isolation.fixture.js';

interface Call {
  readonly method: 'GET' | 'POST';
  readonly route: string;
  readonly body?: object;
}

/** Every route of a memory: the rights it needs (in the order they are checked), its request. */
interface RouteCase {
  readonly name: string;
  readonly rights: readonly Right[];
  call(memoryId: string, m: Matrix): Call;
}

const anyId = (m: Matrix, memoryId: string) =>
  m.seeded[memoryId]?.ids[0] ?? '0193a000-0000-7000-8000-000000000000';
const take = (list: string[] | undefined) => list?.pop() ?? '0193a000-0000-7000-8000-000000000001';

const ROUTES: readonly RouteCase[] = [
  { name: 'state', rights: ['read'], call: () => ({ method: 'GET', route: 'state' }) },
  { name: 'search', rights: ['read'], call: () => ({ method: 'GET', route: 'search?q=note' }) },
  {
    name: 'semantic search',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'search?q=note&mode=semantic' }),
  },
  {
    name: 'lexical search',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'search?q=note&mode=lexical' }),
  },
  {
    name: 'recall-stats',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'recall-stats' }),
  },
  { name: 'events', rights: ['read'], call: () => ({ method: 'GET', route: 'events' }) },
  {
    name: 'event',
    rights: ['read'],
    call: (id, m) => ({ method: 'GET', route: `events/${anyId(m, id)}` }),
  },
  {
    name: 'history',
    rights: ['read'],
    call: (id, m) => ({ method: 'GET', route: `items/${anyId(m, id)}/history` }),
  },
  {
    name: 'recall audit',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'recalls?principal=agent-7' }),
  },
  { name: 'export', rights: ['read'], call: () => ({ method: 'GET', route: 'export' }) },
  { name: 'checkpoint', rights: ['read'], call: () => ({ method: 'GET', route: 'checkpoint' }) },
  {
    name: 'checkpoint at a size',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'checkpoint?size=2' }),
  },
  {
    name: 'inclusion proof',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'proofs/inclusion?seq=1&size=3' }),
  },
  {
    name: 'consistency proof',
    rights: ['read'],
    call: () => ({ method: 'GET', route: 'proofs/consistency?from=1&to=3' }),
  },
  {
    name: 'message',
    rights: ['write'],
    call: () => ({
      method: 'POST',
      route: 'messages',
      body: { speaker: 'agent', content: 'hello' },
    }),
  },
  {
    name: 'document',
    rights: ['write'],
    call: () => ({ method: 'POST', route: 'documents', body: { name: 'd.md', text: 'doc text' } }),
  },
  {
    name: 'recall',
    rights: ['recall'],
    call: () => ({ method: 'POST', route: 'recall', body: { query: 'note' } }),
  },
  {
    name: 'semantic recall',
    rights: ['recall'],
    call: () => ({ method: 'POST', route: 'recall', body: { query: 'note', mode: 'semantic' } }),
  },
  {
    name: 'lexical recall',
    rights: ['recall'],
    call: () => ({ method: 'POST', route: 'recall', body: { query: 'note', mode: 'lexical' } }),
  },
  {
    name: 'recorded recall',
    rights: ['write'],
    call: (id, m) => ({
      method: 'POST',
      route: 'recalls',
      body: { query: 'mine', recalled: [m.seeded[id]?.visible[0] ?? anyId(m, id)] },
    }),
  },
  {
    name: 'deletion',
    rights: ['delete'],
    call: (id, m) => ({
      method: 'POST',
      route: 'deletions',
      body: { targets: [take(m.seeded[id]?.visible)], reason: 'r' },
    }),
  },
  {
    name: 'deletion and erasure',
    rights: ['delete', 'erase'],
    call: (id, m) => ({
      method: 'POST',
      route: 'deletions',
      body: { targets: [take(m.seeded[id]?.visible)], reason: 'r', erase: true },
    }),
  },
  {
    name: 'erasure',
    rights: ['erase'],
    call: (id, m) => ({
      method: 'POST',
      route: 'erasures',
      body: { targets: [take(m.seeded[id]?.deleted)], reason: 'r' },
    }),
  },
];

/** Routes whose allowed answer carries the memory's own content (its marker). */
const SHOWS_CONTENT = new Set([
  'state',
  'search',
  'semantic search',
  'lexical search',
  'recall',
  'semantic recall',
  'lexical recall',
]);

async function send(m: Matrix, key: MatrixKey, memoryId: string, call: Call) {
  const response = await fetch(`${m.url}/api/memories/${memoryId}/${call.route}`, {
    method: call.method,
    headers: {
      Authorization: `Bearer ${key.secret}`,
      ...(call.body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(call.body ? { body: JSON.stringify(call.body) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

describe('isolation matrix over HTTP', () => {
  let m: Matrix;
  beforeAll(async () => {
    m = await startMatrix(12, WITH_EMBEDDER);
  }, 60_000);
  afterAll(() => m?.close());

  const cases = (Object.keys(KEY_SPECS) as KeyName[]).flatMap((key) =>
    MEMORIES.flatMap((memoryId) => ROUTES.map((route) => [key, memoryId, route.name] as const)),
  );

  it.each(cases)('%s on %s: %s', async (keyName, memoryId, routeName) => {
    const key = m.keys[keyName];
    const route = ROUTES.find((r) => r.name === routeName)!;
    const missing = missingRight(key, memoryId, route.rights);
    const before = await m.heads();
    const answer = await send(m, key, memoryId, route.call(memoryId, m));
    if (missing === undefined) {
      expect([answer.status, answer.text.slice(0, 300)]).toEqual([
        expect.any(Number),
        expect.any(String),
      ]);
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(300);
      if (SHOWS_CONTENT.has(routeName)) {
        expect(answer.text).toContain(m.seeded[memoryId]!.marker);
      }
      if (routeName.startsWith('checkpoint')) {
        expect(answer.text.split('\n')[0]).toMatch(new RegExp(`/${memoryId}$`));
      }
      if (route.call(memoryId, m).method === 'POST') {
        const written = JSON.parse(answer.text) as Record<string, { recordedBy?: unknown }> & {
          recordedBy?: unknown;
        };
        const event =
          written.recordedBy !== undefined
            ? written
            : (written.recall ?? written.deletion ?? written.erasure);
        expect(event?.recordedBy).toEqual(key.principal.recordedBy);
      }
      return;
    }
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toEqual(forbiddenBody(key, memoryId, missing));
    expectNothingRevealed(answer.text, m.secrets());
    expect(await m.heads()).toEqual(before);
    // What the same key gets for a memory that does not exist, when it may not reach it either.
    if (missingRight(key, GHOST, route.rights) === missing) {
      const ghost = await send(m, key, GHOST, route.call(GHOST, m));
      expect(ghost.status).toBe(403);
      expect(ghost.text.replaceAll(GHOST, memoryId)).toBe(answer.text);
      expect(await m.heads()).toEqual(before);
    }
  });

  it.each(Object.keys(KEY_SPECS) as KeyName[])(
    'lists to %s only the memories it may read',
    async (keyName) => {
      const key = m.keys[keyName];
      const response = await fetch(`${m.url}/api/memories`, {
        headers: { Authorization: `Bearer ${key.secret}` },
      });
      const expected = MEMORIES.filter((id) => missingRight(key, id, ['read']) === undefined);
      expect(((await response.json()) as string[]).filter((id) => id !== GHOST)).toEqual(
        [...expected].sort(),
      );
    },
  );

  it.each(
    (Object.keys(KEY_SPECS) as KeyName[]).flatMap((key) =>
      MEMORIES.map((memoryId) => [key, memoryId] as const),
    ),
  )(
    'opens the event stream of %s on %s only with read, by header or ?access_token=',
    async (keyName, memoryId) => {
      const key = m.keys[keyName];
      const path = `${m.url}/api/memories/${memoryId}/events/stream`;
      const ways = [
        { url: `${path}?access_token=${key.secret}`, headers: {} },
        { url: path, headers: { Authorization: `Bearer ${key.secret}` } },
      ];
      for (const way of ways) {
        if (missingRight(key, memoryId, ['read']) === undefined) {
          const sse = await openSse(way.url, way.headers);
          try {
            expect(sse.response.statusCode).toBe(200);
            const [first] = await sse.waitFor(1);
            expect(first!.data).toContain(m.seeded[memoryId]!.marker);
          } finally {
            sse.close();
          }
          continue;
        }
        const refused = await fetch(way.url, {
          headers: { Accept: 'text/event-stream', ...way.headers },
        });
        const text = await refused.text();
        expect(refused.status).toBe(403);
        expect(JSON.parse(text)).toEqual(forbiddenBody(key, memoryId, 'read'));
        expectNothingRevealed(text, m.secrets());
      }
    },
  );

  it('serves the log key to anyone, with or without a credential, like a health check', async () => {
    const answers = await Promise.all(
      [undefined, ...Object.values(m.keys).map((k) => k.secret), 'mlk_never-granted'].map(
        async (secret) => {
          const response = await fetch(`${m.url}/api/log-key`, {
            headers: secret === undefined ? {} : { Authorization: `Bearer ${secret}` },
          });
          return [response.status, await response.text()] as const;
        },
      ),
    );
    for (const [status, text] of answers) expect([status, text]).toEqual([200, `${m.vkey}\n`]);
  });

  it('tells each key its rights on a memory (GET /api/access/me)', async () => {
    for (const key of Object.values(m.keys)) {
      for (const memoryId of MEMORIES) {
        const response = await fetch(`${m.url}/api/access/me?memory=${memoryId}`, {
          headers: { Authorization: `Bearer ${key.secret}` },
        });
        const me = (await response.json()) as { rights: string[]; recordedBy: unknown };
        expect(me.recordedBy).toEqual(key.principal.recordedBy);
        const rights = ['read', 'recall', 'write', 'delete', 'erase', 'admin'] as const;
        expect(me.rights).toEqual(
          rights.filter((r) => missingRight(key, memoryId, [r]) === undefined),
        );
      }
    }
  });
});
