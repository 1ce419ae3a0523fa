/**
 * Logs written before the verifiable log existed get their tree on first open: the golden SQLite
 * files of memledger 0.1.0 (plain) and 0.2.0 (sealed, with erasures), opened through
 * `openMemledger`, serve for every memory a checkpoint whose root is the one memledger/verify
 * computes from the stored events alone, and an inclusion proof of every event that verifies
 * against it.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteKeyStore } from '../../src/keys/index.js';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import {
  leafBytes,
  leafHash,
  parseCheckpoint,
  parseInclusionProof,
  rootFromLeafHashes,
  toBase64,
  verifyLeafInclusion,
} from '../../src/verify/index.js';
import { fixtureMasterKey } from '../fixtures/fixture-logs-0.2.0.js';
import { leafInputs } from '../projections/tree-drive.js';

const fixture = (name: string) => join(import.meta.dirname, '..', 'fixtures', name);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-fixture-tree-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A copy of the fixture file (and its key store, for a sealed one), opened through memledger;
 * `store` is the bare store under it, whose stored events the verifier reads.
 */
function openCopy(name: string, sealed: boolean): { memledger: Memledger; store: MemoryStore } {
  const db = join(dir, name);
  copyFileSync(fixture(name), db);
  const store = openSqliteStore({ path: db });
  if (!sealed) return { memledger: openMemledger({ store }), store };
  copyFileSync(fixture(`${name}.keys`), `${db}.keys`);
  const keys = openSqliteKeyStore(`${db}.keys`, { masterKey: fixtureMasterKey(), create: false });
  return { memledger: openMemledger({ store, keys }), store };
}

describe.each([
  { name: 'sqlite-0.1.0.db', sealed: false },
  { name: 'sqlite-0.2.0.db', sealed: true },
])('the golden file $name, opened by this release', ({ name, sealed }) => {
  it('builds each memory a tree whose root the verifier computes from the stored events alone', async () => {
    const { memledger, store } = openCopy(name, sealed);
    try {
      const memoryIds = await memledger.memoryIds();
      expect(memoryIds.length).toBeGreaterThan(0);
      for (const memoryId of memoryIds) {
        const memory = await memledger.memory(memoryId);
        const inputs = await leafInputs(store.log(memoryId));
        const hashes = await Promise.all(inputs.map((input) => leafHash(leafBytes(input))));
        const served = await memory.checkpoint();
        expect(served.size).toBe(inputs.length);
        expect(served.root).toBe(toBase64(await rootFromLeafHashes(hashes)));
        const checkpoint = parseCheckpoint(served.note);
        for (const [seq, input] of inputs.entries()) {
          const proof = parseInclusionProof(await memory.proveInclusion(seq));
          await expect(verifyLeafInclusion(proof, checkpoint, input)).resolves.toEqual(input);
        }
      }
    } finally {
      await memledger.close();
    }
  });
});
