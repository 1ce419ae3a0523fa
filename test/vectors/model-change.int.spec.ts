/**
 * A model change is a new version built beside the old one: until the new model's vectors have
 * caught up with a memory, the previous model serves it (when still configured) or recall is
 * lexical, saying so; progress reports both versions; once the new one has caught up with every
 * memory, the old one's tables are dropped. A quantization change copies the same model's
 * vectors, and the version it copies from serves meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemledger, type Memledger, type EmbeddingsOptions } from '../../src/memory/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { hashingEmbedder, hashingVector } from '../support/hashing-embedder.js';

let dir = '';
const opened: Memledger[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-model-change-'));
});
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

const modelA = () => hashingEmbedder({ model: 'hash-a', dimensions: 16 });
const modelB = (texts: string[] = []) =>
  hashingEmbedder({ model: 'hash-b', dimensions: 24, onEmbed: (t) => texts.push(...t) });

function open(embeddings: EmbeddingsOptions): Memledger {
  const ledger = openMemledger({ store: openSqliteStore({ path: join(dir, 'm.db') }), embeddings });
  opened.push(ledger);
  return ledger;
}

async function closeAll(): Promise<void> {
  for (const ledger of opened.splice(0)) await ledger.close();
}

/** The vector tables in the file (vec0 tables and their shadows). */
function vectorTables(): string[] {
  const db = new Database(join(dir, 'm.db'), { readonly: true });
  try {
    return db
      .prepare<[], string>(
        "SELECT name FROM sqlite_schema WHERE name LIKE 'vec\\_%\\_keys' ESCAPE '\\'",
      )
      .pluck()
      .all();
  } finally {
    db.close();
  }
}

async function writeWithModelA(): Promise<void> {
  const ledger = open({ embedder: modelA(), follow: false });
  for (const id of ['a', 'b']) {
    const memory = await ledger.memory(id);
    for (let i = 0; i < 5; i++)
      await memory.recordMessage({ speaker: 'user', content: `pony number ${i}` });
    await memory.recall({ query: 'pony' });
  }
  await closeAll();
}

describe('a model change', () => {
  it('runs lexical, saying so, until the new model caught up with the memory', async () => {
    await writeWithModelA();
    const ledger = open({ embedder: modelB(), follow: false, embedBeforeRecall: 2 });
    const memory = await ledger.memory('a');
    const { recall, vectors, items } = await memory.recall({ query: 'pony', mode: 'semantic' });
    expect(recall.retrieval.method).toBe('lexical');
    expect(items.length).toBeGreaterThan(0);
    expect(vectors).toMatchObject({
      requested: 'semantic',
      state: 'building',
      model: 'hash-b',
      dimensions: 24,
      behind: 3,
      reason: 'the vectors of hash-b are still being built for this memory',
    });
    // Every memory counts: a (3 items to go) and b (5, not touched yet).
    expect(ledger.vectors!.progress()).toEqual([
      expect.objectContaining({
        model: 'hash-b',
        current: true,
        memories: 2,
        readyMemories: 0,
        behind: 8,
      }),
      expect.objectContaining({
        model: 'hash-a',
        current: false,
        memories: 2,
        readyMemories: 2,
        behind: 0,
      }),
    ]);
    // The next recalls embed two more items each: the third finds the version caught up.
    await memory.recall({ query: 'pony', mode: 'semantic' });
    const caughtUp = await memory.recall({ query: 'pony', mode: 'semantic' });
    expect(caughtUp.recall.retrieval).toMatchObject({
      method: 'semantic',
      model: 'hash-b',
      dimensions: 24,
    });
    expect(caughtUp.vectors).toMatchObject({ state: 'current', behind: 0 });
  });

  it('lets the previous model serve while the new one is built, when it is still configured', async () => {
    await writeWithModelA();
    const ledger = open({
      embedder: modelB(),
      previous: modelA(),
      follow: false,
      embedBeforeRecall: 0,
    });
    const memory = await ledger.memory('a');
    const { recall, vectors } = await memory.recall({ query: 'pony', mode: 'hybrid' });
    expect(recall.retrieval).toMatchObject({ method: 'hybrid', model: 'hash-a', dimensions: 16 });
    expect(vectors).toMatchObject({ state: 'current', model: 'hash-a' });
  });

  it('is built in every memory in the background, then the old version is dropped', async () => {
    await writeWithModelA();
    expect(vectorTables()).toHaveLength(1);
    const texts: string[] = [];
    const ledger = open({ embedder: modelB(texts) });
    await ledger.vectors!.idle();
    expect(ledger.vectors!.progress()).toEqual([
      expect.objectContaining({
        model: 'hash-b',
        current: true,
        memories: 2,
        readyMemories: 2,
        behind: 0,
      }),
    ]);
    expect(vectorTables()).toHaveLength(1);
    // Both memories hold the same five texts: each was embedded once.
    expect(texts).toHaveLength(5);
    const { recall } = await (await ledger.memory('b')).recall({ query: 'pony' });
    expect(recall.retrieval).toMatchObject({ method: 'hybrid', model: 'hash-b' });
  });
});

describe('a quantization change', () => {
  it('builds the new version from the stored vectors of the same model, asking the model for none', async () => {
    await writeWithModelA();
    const texts: string[] = [];
    const embedder = hashingEmbedder({
      model: 'hash-a',
      dimensions: 16,
      onEmbed: (t) => texts.push(...t),
    });
    const ledger = open({ embedder, quantization: 'int8' });
    await ledger.vectors!.idle();
    expect(ledger.vectors!.progress()).toEqual([
      expect.objectContaining({ model: 'hash-a', quantization: 'int8', current: true }),
    ]);
    expect(ledger.vectors!.progress()[0]).toMatchObject({ readyMemories: 2, behind: 0 });
    expect(texts).toEqual([]);
    const hits = await (await ledger.memory('a')).search('pony number 3', { mode: 'semantic' });
    expect(hits[0]).toMatchObject({ seq: 3 });
    const [item, query] = ['user: pony number 3', 'pony number 3'].map((t) => hashingVector(t, 16));
    expect(hits[0]!.score).toBeCloseTo(
      item!.reduce((sum, x, d) => sum + x * query![d]!, 0),
      5,
    );
  });

  it('keeps recall semantic while the new version is built: the version it is built from serves', async () => {
    await writeWithModelA();
    const ledger = open({
      embedder: modelA(),
      quantization: 'binary',
      follow: false,
      embedBeforeRecall: 0,
    });
    const memory = await ledger.memory('a');
    const { recall, items } = await memory.recall({ query: 'pony number 3', mode: 'semantic' });
    expect(recall.retrieval).toMatchObject({ method: 'semantic', model: 'hash-a' });
    expect(items[0]).toMatchObject({ seq: 3 });
    const binary = ledger.vectors!.progress().find((v) => v.current);
    expect(binary).toMatchObject({ quantization: 'binary', readyMemories: 0 });
  });

  it('defaults to float vectors (the exact top k) whatever the dimensions; binary when asked', async () => {
    const byte = open({ embedder: hashingEmbedder({ model: 'eight', dimensions: 16 }) });
    expect(byte.vectors!.progress()[0]).toMatchObject({ model: 'eight', quantization: 'none' });
    await closeAll();
    const asked = open({
      embedder: hashingEmbedder({ model: 'eight', dimensions: 16 }),
      quantization: 'binary',
    });
    expect(asked.vectors!.progress().find((v) => v.current)).toMatchObject({
      model: 'eight',
      quantization: 'binary',
    });
  });
});
