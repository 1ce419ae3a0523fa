/**
 * An erased item's vectors leave the file: its row and its content digest are deleted in the
 * Erasure's own transaction (secure_delete zeroes them), the scrub that follows empties the
 * write-ahead log, and no rebuild embeds it again (an erased item has no words). Scanned in the
 * files' bytes, on the SQLite store (vectors in its own file) and on the in-memory store
 * (vectors in a read-model file), with float and with binary-quantized vectors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { contentDigest, itemText, unitVector, type Quantization } from '../../src/vectors/index.js';
import { hashingEmbedder, hashingVector } from '../support/hashing-embedder.js';

const DIMENSIONS = 32;
let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-erasure-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Kind {
  readonly name: string;
  /** The store, and the file that holds the vectors. */
  open(): { store: MemoryStore; readModels?: string; file: string };
}

const kinds: Kind[] = [
  {
    name: 'SQLite',
    open: () => ({
      store: openSqliteStore({ path: join(dir, 'log.db') }),
      file: join(dir, 'log.db'),
    }),
  },
  {
    name: 'in-memory with a read-model file',
    open: () => ({
      store: openInMemoryStore(),
      readModels: join(dir, 'read-models.db'),
      file: join(dir, 'read-models.db'),
    }),
  },
];

/** Which of the file and its WAL hold `needle`. */
function holders(file: string, needle: Buffer): string[] {
  return [file, `${file}-wal`].filter((f) => existsSync(f) && readFileSync(f).includes(needle));
}

/** The float32 bytes the index stores for a message's text. */
function storedVector(content: string): Buffer {
  const text = itemText({ kind: 'message', speaker: 'user', content } as Parameters<
    typeof itemText
  >[0]);
  const unit = unitVector(hashingVector(text, DIMENSIONS));
  return Buffer.from(unit.buffer, unit.byteOffset, unit.byteLength);
}

describe.each(kinds)('vectors of erased items on $name', (kind) => {
  it.each<Quantization>(['none', 'binary'])(
    'leave the file bytes after the scrub and never come back with a rebuild (quantization %s)',
    async (quantization) => {
      const { store, readModels, file } = kind.open();
      const keys = openSqliteKeyStore(join(dir, 'keys.db'), {
        masterKey: masterKeyFromBytes(randomBytes(32)),
        create: true,
      });
      const texts: string[] = [];
      const embedder = hashingEmbedder({
        dimensions: DIMENSIONS,
        onEmbed: (t) => texts.push(...t),
      });
      const ledger: Memledger = openMemledger({
        store,
        keys,
        ...(readModels ? { readModels } : {}),
        embeddings: { embedder, quantization, follow: false },
      });
      try {
        const memory = await ledger.memory();
        const secret = 'the pony is called Quillfeather zx81';
        const erased = await memory.recordMessage({ speaker: 'user', content: secret });
        const kept = await memory.recordMessage({
          speaker: 'user',
          content: 'a kettle of fish zx82',
        });
        const deleted = await memory.recordMessage({
          speaker: 'user',
          content: 'a pony deleted zx83',
        });
        await memory.recall({ query: 'pony' });
        // The scan finds what is there.
        expect(holders(file, storedVector(secret))).not.toEqual([]);
        await memory.deleteContent({ targets: [deleted.id], reason: 'asked' });
        const outcome = await memory.deleteAndErase({ targets: [erased.id], reason: 'erase it' });
        expect(outcome.cleanup.state).toBe('done');
        expect(holders(file, storedVector(secret))).toEqual([]);
        expect(holders(file, contentDigest(`user: ${secret}`))).toEqual([]);
        expect(holders(file, storedVector('a kettle of fish zx82'))).not.toEqual([]);
        expect(holders(file, storedVector('a pony deleted zx83'))).not.toEqual([]);

        await memory.rebuild();
        const { items } = await memory.recall({
          query: 'pony Quillfeather',
          mode: 'semantic',
          limit: 10,
        });
        expect(items.map((i) => i.id)).toEqual([kept.id]);
        expect(memory.erasureCleanup().state).toBe('done');
        expect(holders(file, storedVector(secret))).toEqual([]);
        expect(
          texts.filter((t) => t.includes('Quillfeather') && t.startsWith('user: ')),
        ).toHaveLength(1);
      } finally {
        await ledger.close();
        if (kind.name === 'SQLite') await store.close().catch(() => undefined);
      }
    },
  );
});

describe('vectors of an item erased by a memledger without vectors (same SQLite file)', () => {
  it('are deleted by the next catch-up of the one with vectors, which scrubs again', async () => {
    const path = join(dir, 'shared.db');
    const masterKey = masterKeyFromBytes(randomBytes(32));
    const keysFile = join(dir, 'shared.keys');
    const withVectors = openMemledger({
      store: openSqliteStore({ path }),
      keys: openSqliteKeyStore(keysFile, { masterKey, create: true }),
      embeddings: { embedder: hashingEmbedder({ dimensions: DIMENSIONS }), follow: false },
    });
    const without = openMemledger({
      store: openSqliteStore({ path }),
      keys: openSqliteKeyStore(keysFile, { masterKey, create: false }),
    });
    try {
      const a = await withVectors.memory();
      const secret = 'the pony is called Quillfeather zx91';
      const item = await a.recordMessage({ speaker: 'user', content: secret });
      await a.recall({ query: 'pony' });
      expect(holders(path, storedVector(secret))).not.toEqual([]);
      const b = await without.memory();
      await b.deleteAndErase({ targets: [item.id], reason: 'erase it' });
      const { items } = await a.recall({ query: 'pony', mode: 'semantic' });
      expect(items).toEqual([]);
      expect(a.erasureCleanup().state).toBe('done');
      expect(holders(path, storedVector(secret))).toEqual([]);
    } finally {
      await without.close();
      await withVectors.close();
    }
  });
});
