/**
 * The tree projection on real stores: the same stored events give the same leaves and roots on
 * the in-memory store, a SQLite file and EventStoreDB (the in-process test server), equal to the
 * roots memledger/verify computes from the leaf inputs with WebCrypto and to RFC 9162's
 * recursive definitions; every inclusion and consistency path it serves verifies; it refuses
 * events that do not follow its checkpoint; a reset and rebuild gives the same rows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryEvent } from '../../src/core/index.js';
import { leafOf } from '../../src/projections/tree/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import type { ProjectedEvent } from '../../src/store/projection.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import {
  toBase64,
  verifyConsistency,
  verifyInclusion,
  type LeafInput,
} from '../../src/verify/index.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';
import { refLeafHash, refProof, refRoot } from '../verify/reference-merkle.js';
import { drive, leafInputs, openTestTree, referenceRoots } from './tree-drive.js';

let dir: string;
let server: EsdbTestServer;
const stores: { name: string; store: MemoryStore }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-tree-'));
  server = await startEsdbTestServer();
  stores.push(
    { name: 'in-memory', store: openInMemoryStore() },
    { name: 'SQLite', store: openSqliteStore({ path: join(dir, 'm.db') }) },
    {
      name: 'EventStoreDB',
      store: openEventStoreDbStore(
        { connectionString: server.connectionString },
        { streamPrefix: `tree-${Date.now()}-` },
      ),
    },
  );
});

afterAll(async () => {
  for (const { store } of stores) await store.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Twenty events of every kind, built once, so every store stores the very same ones. */
function history(): MemoryEvent[][] {
  const batches: MemoryEvent[][] = [];
  for (let i = 0; i < 4; i++) {
    const m = message(`fact ${i} — ünïcödé "quoted"`, { actor: i % 2 ? 'agent' : null });
    const d = doc(`runbook ${i}`, { sha256: 'a'.repeat(64) });
    batches.push([m, d], [recallOf([m.id, d.id])], [deletionOf([m.id])], [message(`after ${i}`)]);
  }
  return batches;
}

describe('tree projection', () => {
  it('gives the same leaves and roots on every store, equal to memledger/verify and RFC 9162', async () => {
    const batches = history();
    const rootsByStore: string[][] = [];
    for (const { store } of stores) {
      const log = store.log('tree-1');
      for (const batch of batches) await log.append(batch);
      const { tree, db } = openTestTree();
      await drive(db, tree, log);
      const inputs = await leafInputs(log);
      expect(inputs).toHaveLength(20);
      const reference = await referenceRoots(inputs);
      const rfc = inputs.map((input: LeafInput) => refLeafHash(leafBytesOf(input)));
      const roots: string[] = [];
      for (let n = 0; n <= 20; n++) {
        const root = tree.root('tree-1', n);
        expect(toBase64(root)).toBe(toBase64(reference[n]!));
        expect(root.equals(refRoot(rfc.slice(0, n)))).toBe(true);
        roots.push(toBase64(root));
      }
      rootsByStore.push(roots);
    }
    expect(rootsByStore[1]).toEqual(rootsByStore[0]);
    expect(rootsByStore[2]).toEqual(rootsByStore[0]);
  });

  it('serves inclusion and consistency paths that verify for every size, index and pair', async () => {
    const log = openInMemoryStore().log('paths');
    for (const batch of history()) await log.append(batch);
    const { tree, db } = openTestTree();
    await drive(db, tree, log, 3);
    const inputs = await leafInputs(log);
    const hashes = inputs.map((input) => refLeafHash(leafBytesOf(input)));
    for (let n = 1; n <= 20; n++) {
      const root = tree.root('paths', n);
      for (let i = 0; i < n; i++) {
        const path = tree.inclusionPath('paths', i, n);
        await verifyInclusion({ index: i, size: n, leafHash: hashes[i]!, path }, root);
      }
      for (let m = 0; m <= n; m++) {
        const path = tree.consistencyPath('paths', m, n);
        if (m > 0 && m < n)
          expect(path.map(toBase64)).toEqual(refProof(m, hashes.slice(0, n)).map(toBase64));
        await verifyConsistency({ from: m, to: n, path }, tree.root('paths', m), root);
      }
    }
  });

  it('keeps each memory its own tree in one file', async () => {
    const store = openInMemoryStore();
    const a = store.log('a');
    const b = store.log('b');
    await a.append([message('only in a')]);
    await b.append([message('only in b'), message('b again')]);
    const { tree, db } = openTestTree();
    await drive(db, tree, a);
    await drive(db, tree, b);
    expect([tree.size('a'), tree.size('b'), tree.size('c')]).toEqual([1, 2, 0]);
    expect(tree.root('a', 1).equals(tree.root('b', 1))).toBe(false);
  });

  it('refuses events that do not follow its checkpoint, and writes nothing', async () => {
    const log = openInMemoryStore().log('gaps');
    await log.append([message('0'), message('1'), message('2')]);
    const events: ProjectedEvent[] = [];
    for await (const projected of log.readProjected()) events.push(projected);
    const { tree } = openTestTree();
    expect(() => tree.apply('gaps', [events[1]!])).toThrow(
      expect.objectContaining({ code: 'REPLAY_ORDER' }) as Error,
    );
    expect(() => tree.apply('gaps', [events[0]!, events[2]!])).toThrow(
      expect.objectContaining({ code: 'REPLAY_ORDER' }) as Error,
    );
    expect(tree.checkpoint('gaps')).toBe(-1);
  });

  it('answers TREE_SIZE_PAST_HEAD for a size it does not hold', async () => {
    const log = openInMemoryStore().log('past');
    await log.append([message('0'), message('1')]);
    const { tree, db } = openTestTree();
    await drive(db, tree, log);
    for (const call of [
      () => tree.root('past', 3),
      () => tree.inclusionPath('past', 0, 3),
      () => tree.consistencyPath('past', 1, 3),
      () => tree.leafHash('past', 2),
    ]) {
      expect(call).toThrow(expect.objectContaining({ code: 'TREE_SIZE_PAST_HEAD' }) as Error);
    }
    expect(() => tree.inclusionPath('past', 2, 2)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }) as Error,
    );
    expect(() => tree.consistencyPath('past', 2, 1)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }) as Error,
    );
  });

  it('rebuilds the same rows after a reset', async () => {
    const log = openInMemoryStore().log('reset');
    for (const batch of history()) await log.append(batch);
    const { tree, db } = openTestTree();
    await drive(db, tree, log);
    const rows = () => db.prepare('SELECT seq, row FROM tree_rows ORDER BY seq').all();
    const before = rows();
    db.transaction(() => tree.reset('reset'))();
    expect(tree.size('reset')).toBe(0);
    await drive(db, tree, log, 20);
    expect(rows()).toEqual(before);
  });

  it('encodes each stored vector event as its checked-in leaf', () => {
    const vectors = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'leaf-v1.vectors.json'), 'utf8'),
    ) as { leaves: { input: LeafInput; leafBytes: string }[] };
    for (const { input, leafBytes } of vectors.leaves) {
      const projected = {
        event: { seq: input.seq, id: input.id },
        stored: { type: input.type, version: input.version, body: input.body },
      } as unknown as ProjectedEvent;
      expect(toBase64(leafOf(input.memory, projected))).toBe(leafBytes);
    }
  });

  it('refuses a stored type that is no event kind', () => {
    const projected = {
      event: { seq: 0, id: '00000000-0000-7000-8000-000000000001' },
      stored: { type: 'Checkpoint', version: 1, body: {} },
    } as unknown as ProjectedEvent;
    expect(() => leafOf('m', projected)).toThrow(
      expect.objectContaining({ code: 'EVENT_DECODE_FAILED' }) as Error,
    );
  });
});

function leafBytesOf(input: LeafInput): Uint8Array {
  return leafOf(input.memory, {
    event: { seq: input.seq, id: input.id },
    stored: { type: input.type, version: input.version, body: input.body },
  } as unknown as ProjectedEvent);
}
