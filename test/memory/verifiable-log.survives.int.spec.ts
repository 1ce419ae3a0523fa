/**
 * What happens after a checkpoint never breaks it: a deletion, an erasure (the item's key
 * destroyed) and a rebuild of the read models and of the tree leave every earlier proof valid,
 * on a sealed SQLite file and on sealed EventStoreDB. And two application instances on one
 * EventStoreDB serve the same roots and the same signed notes, racing to keep them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openStore, type StoreConfig } from '../../src/store/open-store.js';
import { generateSigner, type LogIdentity } from '../../src/tlog/index.js';
import {
  SIGNATURE_TYPE,
  parseConsistencyProof,
  parseInclusionProof,
  parseVerifierKey,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
} from '../../src/verify/index.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

const signer = generateSigner('survives.test');
const identity: LogIdentity = { name: signer.name, signer, witnesses: [] };
let root: string;
let server: EsdbTestServer;
let n = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'memledger-survives-'));
  server = await startEsdbTestServer();
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** A sealed store of each kind; `treeFile` is the file its tree lives in. */
const kinds: {
  name: string;
  open: () => { config: StoreConfig; treeFile: string; readModels?: string };
}[] = [
  {
    name: 'SQLite',
    open() {
      const path = join(root, `s-${++n}.db`);
      return {
        config: { kind: 'sqlite', path, keys: { kind: 'beside', path, env: {} } },
        treeFile: path,
      };
    },
  },
  {
    name: 'EventStoreDB',
    open() {
      const dir = join(root, `e-${++n}`);
      const readModels = join(dir, 'read-models.db');
      return {
        config: {
          kind: 'eventstoredb',
          connectionString: server.connectionString,
          idIndex: join(dir, 'index.db'),
          keys: { kind: 'beside', path: join(dir, 'eventstoredb'), env: {} },
        },
        treeFile: readModels,
        readModels,
      };
    },
  },
];

const verifyKey = () => parseVerifierKey(signer.vkey, SIGNATURE_TYPE.ed25519);

describe.each(kinds)('earlier proofs on $name', ({ open }) => {
  it('still verify after a deletion, an erasure and a rebuild of the read models and the tree', async () => {
    const { config, treeFile, readModels } = open();
    const memledger: Memledger = openMemledger({
      store: await openStore(config),
      log: identity,
      ...(readModels ? { readModels } : {}),
    });
    try {
      const memory = await memledger.memory(`kept-${n}`);
      const items = [];
      for (let i = 0; i < 4; i++)
        items.push(await memory.recordMessage({ speaker: 'user', content: `secret ${i}` }));
      const before = await memory.checkpoint();
      const proofs = await Promise.all(items.map((item) => memory.proveInclusion(item.seq, 4)));

      await memory.deleteAndErase({ targets: [items[1]!.id], reason: 'erase it' });
      await memory.rebuild();
      const db = new Database(treeFile);
      db.exec('DELETE FROM tree_rows');
      db.close();
      const after = await memory.checkpoint();
      expect(after.size).toBe(6);

      const log = await verifyKey();
      const a = await verifyCheckpoint(before.note, { log });
      const b = await verifyCheckpoint(after.note, { log });
      for (const [i, proof] of proofs.entries()) {
        await verifyLeafInclusion(parseInclusionProof(proof), a);
        expect(await memory.proveInclusion(items[i]!.seq, 4)).toEqual(proof);
      }
      await verifyCheckpointConsistency(
        a,
        b,
        parseConsistencyProof(await memory.proveConsistency(4, 6)),
      );
      expect((await memory.checkpoint({ size: 4 })).note).toBe(before.note);
    } finally {
      await memledger.close();
    }
  });
});

describe('two instances on one EventStoreDB', () => {
  it('serve identical roots and signed notes, keeping one checkpoint per size', async () => {
    const prefix = `shared-${++n}-`;
    const instance = (i: number) =>
      openMemledger({
        store: openEventStoreDbStore(
          { connectionString: server.connectionString },
          { idIndex: join(root, `shared-index-${i}.db`), streamPrefix: prefix },
        ),
        log: identity,
        readModels: join(root, `shared-rm-${i}.db`),
      });
    const [x, y] = [instance(1), instance(2)];
    try {
      const [mx, my] = [await x.memory('shared'), await y.memory('shared')];
      for (let i = 0; i < 12; i++) {
        await (i % 2 ? mx : my).recordMessage({ speaker: i % 2 ? 'x' : 'y', content: `turn ${i}` });
      }
      const [cx, cy] = await Promise.all([mx.checkpoint(), my.checkpoint()]);
      expect(cx).toEqual(cy);
      expect(cx.size).toBe(12);
      for (let size = 0; size <= 12; size++) {
        expect((await mx.checkpoint({ size })).root).toBe((await my.checkpoint({ size })).root);
      }
      const proof = await my.proveConsistency(5, 12);
      expect(await mx.proveConsistency(5, 12)).toEqual(proof);
      await mx.recordMessage({ speaker: 'x', content: 'one more' });
      const [nx, ny] = await Promise.all([mx.checkpoint(), my.checkpoint()]);
      expect(nx.note).toBe(ny.note);
      const log = await verifyKey();
      await verifyCheckpointConsistency(
        await verifyCheckpoint(cx.note, { log }),
        await verifyCheckpoint(nx.note, { log }),
        parseConsistencyProof(await my.proveConsistency(12, 13)),
      );
    } finally {
      await x.close();
      await y.close();
    }
  });
});
