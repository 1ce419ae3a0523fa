/**
 * The isolation matrix's world: a real server on a sealed SQLite file that signs its checkpoints,
 * four memories seeded with
 * marked content, keys of different grants (created in the file before the server starts), and
 * the checks every refusal must pass: 403 `FORBIDDEN` naming the missing right, the same answer
 * as for a memory that does not exist, no content or id in it, and the log heads unchanged.
 */
import {
  authorize,
  openSqliteGrantStore,
  type Principal,
  type Right,
} from '../../src/access/index.js';
import type { HttpConfig } from '../../src/http/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { generateSigner } from '../../src/tlog/index.js';
import { hashingEmbedder } from '../support/hashing-embedder.js';
import { startTestServer } from '../http/http-app.js';

/** The server's memory options where the matrix asks for semantic modes: a test embedder. */
export const WITH_EMBEDDER: HttpConfig['memory'] = {
  embeddings: { embedder: hashingEmbedder() },
};

/** The memories of the matrix; every one holds events. */
export const MEMORIES = ['m-a', 'm-b', 'm-c', 'other'] as const;
/** A memory never written, outside every key's grant but the seeder's. */
export const GHOST = 'zz-ghost';

/** The keys of the matrix (name -> grant). */
export const KEY_SPECS = {
  reader: { principal: 'reader-1', memories: ['m-a'], rights: ['read'] },
  agent: { principal: 'agent-7', memories: ['m-a', 'm-b'], rights: ['read', 'recall', 'write'] },
  janitor: { principal: 'janitor', memories: ['m-*'], rights: ['delete', 'erase'] },
  teamAdmin: {
    principal: 'team-admin',
    memories: ['m-c*', 'other'],
    rights: ['read', 'recall', 'write', 'delete', 'erase', 'admin'],
  },
} as const satisfies Record<string, { principal: string; memories: string[]; rights: Right[] }>;
export type KeyName = keyof typeof KEY_SPECS;

/** A key of the matrix: its secret and its principal. */
export interface MatrixKey {
  readonly name: KeyName;
  readonly id: string;
  readonly secret: string;
  readonly principal: Principal;
}

/** What a memory was seeded with. */
export interface Seeded {
  /** The words only this memory holds. */
  readonly marker: string;
  /** Ids of its events. */
  readonly ids: string[];
  /** Visible messages, handed out one per deletion. */
  readonly visible: string[];
  /** Deleted messages not yet erased, handed out one per erasure. */
  readonly deleted: string[];
}

/** The running world. */
export interface Matrix {
  readonly url: string;
  /** The verifier key line of the key the server signs checkpoints with. */
  readonly vkey: string;
  readonly dbPath: string;
  readonly keys: Record<KeyName, MatrixKey>;
  readonly seeded: Record<string, Seeded>;
  /** The head of every memory (and the ghost), read from the file. */
  heads(): Promise<Record<string, number | null>>;
  /** Every id and marker the memories hold: none may appear in a refusal. */
  readonly secrets: () => string[];
  close(): Promise<void>;
}

/** The principal a key spec authenticates as. */
function principalOf(id: string, spec: (typeof KEY_SPECS)[KeyName]): Principal {
  return {
    recordedBy: { principal: spec.principal, via: `key:${id}` },
    grants: [{ memories: spec.memories, rights: spec.rights }],
    keyId: id,
  };
}

/**
 * Starts the server, grants the keys and seeds every memory with `targets` items to delete.
 * `memory` adds to the server's memory module options (an embedder, so semantic modes are allowed).
 */
export async function startMatrix(
  targets = 12,
  memory: HttpConfig['memory'] = {},
): Promise<Matrix> {
  const signer = generateSigner('isolation.test');
  const log = { name: signer.name, signer, witnesses: [] };
  const server = await startTestServer({ memory: { ...memory, log } }, { sealed: true });
  const grants = openSqliteGrantStore({ path: server.dbPath });
  const by = { principal: 'test', via: 'local' } as const;
  const seed = await grants.create(
    { principal: 'seeder', memories: ['*'], rights: ['read', 'write', 'delete'] },
    by,
  );
  const keys = {} as Record<KeyName, MatrixKey>;
  for (const [name, spec] of Object.entries(KEY_SPECS) as [
    KeyName,
    (typeof KEY_SPECS)[KeyName],
  ][]) {
    const { key, secret } = await grants.create(
      { principal: spec.principal, memories: [...spec.memories], rights: [...spec.rights] },
      by,
    );
    keys[name] = { name, id: key.id, secret, principal: principalOf(key.id, spec) };
  }
  await grants.close();
  // Granted through another connection: the server sees the keys at its next poll of the file.
  for (const key of [{ id: seed.key.id, secret: seed.secret }, ...Object.values(keys)]) {
    await untilAccepted(server.url, key.secret, key.id);
  }
  const post = async (memoryId: string, route: string, body: object) => {
    const response = await fetch(`${server.url}/api/memories/${memoryId}/${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${seed.secret}` },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`seeding ${route}: ${response.status}`);
    return (await response.json()) as { id: string };
  };
  const seeded: Record<string, Seeded> = {};
  for (const memoryId of MEMORIES) {
    const marker = `secret-of-${memoryId}-${Math.random().toString(36).slice(2)}`;
    const ids: string[] = [];
    const add = async (route: string, body: object) => {
      const { id } = await post(memoryId, route, body);
      ids.push(id);
      return id;
    };
    await add('documents', { name: `${marker}.md`, text: `The ${marker} document.` });
    const visible = [];
    for (let i = 0; i < targets; i++)
      visible.push(await add('messages', { speaker: 'user', content: `${marker} note ${i}` }));
    const deleted = [];
    for (let i = 0; i < targets; i++) {
      const id = await add('messages', { speaker: 'user', content: `${marker} to erase ${i}` });
      await add('deletions', { targets: [id], reason: 'prepared for erasure' });
      deleted.push(id);
    }
    seeded[memoryId] = { marker, ids, visible, deleted };
  }
  return {
    url: server.url,
    vkey: signer.vkey,
    dbPath: server.dbPath,
    keys,
    seeded,
    secrets: () => Object.values(seeded).flatMap((s) => [s.marker, ...s.ids]),
    heads: async () => {
      const store = openSqliteStore({ path: server.dbPath });
      try {
        const out: Record<string, number | null> = {};
        for (const memoryId of [...MEMORIES, GHOST])
          out[memoryId] = await store.log(memoryId).lastSeq();
        return out;
      } finally {
        await store.close();
      }
    },
    close: () => server.close(),
  };
}

/** The first of `rights` the key lacks on `memoryId`, if any (the one a refusal names). */
export function missingRight(
  key: MatrixKey,
  memoryId: string,
  rights: readonly Right[],
): Right | undefined {
  return rights.find((right) => !authorize(key.principal, memoryId, right));
}

/** The refusal a key gets for a right it lacks on a memory. */
export function forbiddenBody(key: MatrixKey, memoryId: string, right: Right) {
  return {
    code: 'FORBIDDEN',
    message: `Principal ${KEY_SPECS[key.name].principal} lacks the right "${right}" on memory ${memoryId}.`,
  };
}

/** Fails when `text` holds any id or marker of any memory. */
export function expectNothingRevealed(text: string, secrets: readonly string[]): void {
  const leaked = secrets.filter((secret) => text.includes(secret));
  expect(leaked).toEqual([]);
}

/**
 * Resolves once the server at `url` authenticates `secret` as key `keyId`: a key granted by
 * another connection reaches the server at its next poll of the file.
 */
export async function untilAccepted(url: string, secret: string, keyId: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await fetch(`${url}/api/access/me`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    const me = response.ok ? ((await response.json()) as { recordedBy?: { via?: string } }) : {};
    if (me.recordedBy?.via === `key:${keyId}`) return;
    if (Date.now() > deadline) throw new Error(`the server never accepted key ${keyId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
