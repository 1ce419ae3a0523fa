/**
 * Semantic and hybrid recall through the facade, driven by the hashing test embedder (it knows
 * spellings, not meanings: no test here expects "daughter" to find "kid"). The Recall records
 * the method that actually ran; the answer says when vectors lag or why lexical ran.
 */
import { isMemoryError, MemoryError, type Sequenced } from '../../src/core/index.js';
import { functionEmbedder } from '../../src/embeddings/index.js';
import { openMemledger, type Memledger, type MemledgerOptions } from '../../src/memory/index.js';
import type { EmbeddingsOptions } from '../../src/memory/index.js';
import { hashingEmbedder, HASHING_MODEL } from '../support/hashing-embedder.js';
import { storeKinds } from './stores.js';

const DIMENSIONS = 32;
/** The vector search of float vectors without cells: the exact top k. */
const EXACT = { quantization: 'none', oversample: null, cells: 0, probes: null };
const opened: Memledger[] = [];
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

describe.each(storeKinds())('semantic recall on $name', (kind) => {
  let texts: string[];
  let down: boolean;
  const embedder = () =>
    hashingEmbedder({
      dimensions: DIMENSIONS,
      onEmbed: (batch) => texts.push(...batch),
      fail: () =>
        down ? new MemoryError('EMBEDDER_UNAVAILABLE', 'Embedder test is down.') : undefined,
    });
  /** A memledger with the hashing embedder (`null`: without one). */
  const open = (
    embeddings: Partial<EmbeddingsOptions> | null = {},
    options: Partial<MemledgerOptions> = {},
  ) => {
    const ledger = openMemledger({
      store: kind.open(),
      ...options,
      ...(embeddings ? { embeddings: { embedder: embedder(), follow: false, ...embeddings } } : {}),
    });
    opened.push(ledger);
    return ledger;
  };
  beforeEach(() => {
    texts = [];
    down = false;
  });
  afterEach(() => kind.cleanup());

  it('records the method that ran, with the model, dimensions and fusion; hybrid by default', async () => {
    const memory = await open({ fusion: { k: 30, weights: { semantic: 2 } } }).memory();
    await memory.recordMessage({ speaker: 'user', content: 'the ponies are in the paddock' });
    const hybrid = await memory.recall({ query: 'pony paddock' });
    expect(hybrid.recall.retrieval).toEqual({
      method: 'hybrid',
      model: HASHING_MODEL,
      dimensions: DIMENSIONS,
      fusion: { method: 'rrf', k: 30, weights: { lexical: 1, semantic: 2 } },
      vectors: EXACT,
    });
    expect(hybrid.vectors).toMatchObject({ requested: 'hybrid', state: 'current', behind: 0 });
    const semantic = await memory.recall({ query: 'pony', mode: 'semantic' });
    expect(semantic.recall.retrieval).toEqual({
      method: 'semantic',
      model: HASHING_MODEL,
      dimensions: DIMENSIONS,
      fusion: null,
      vectors: EXACT,
    });
    const lexical = await memory.recall({ query: 'ponies', mode: 'lexical' });
    expect(lexical.recall.retrieval).toEqual({
      method: 'lexical',
      model: null,
      dimensions: null,
      fusion: null,
      vectors: null,
    });
    expect(lexical.vectors).toBeUndefined();
    // As stored: the log holds what the answer showed.
    expect((await memory.getEvent(semantic.recall.id)).event).toEqual(semantic.recall);
  });

  it('records an approximate vector search as such: the quantization, its oversampling, and the cells read once they form', async () => {
    const memory = await open({
      quantization: 'binary',
      oversample: 3,
      cells: 2,
      probes: 1,
    }).memory();
    const say = async (n: number) => {
      for (let i = 0; i < n; i++)
        await memory.recordMessage({ speaker: 'user', content: `pony note ${i} in the paddock` });
    };
    await say(5);
    // Below 16 rows a cell, the memory's rows are one: every row is read.
    const before = await memory.recall({ query: 'pony', mode: 'semantic' });
    const binary = { quantization: 'binary', oversample: 3 };
    expect(before.recall.retrieval.vectors).toEqual({ ...binary, cells: 0, probes: null });
    await say(40);
    const after = await memory.recall({ query: 'pony', mode: 'hybrid' });
    expect(after.recall.retrieval.vectors).toEqual({ ...binary, cells: 2, probes: 1 });
    expect((await memory.getEvent(after.recall.id)).event).toEqual(after.recall);
  });

  it('finds by spelling what BM25 misses (the typo "ponnies" for "ponies", which stemming does not mend), and a writer finds its own writes', async () => {
    const memory = await open().memory();
    const written = await memory.recordMessage({
      speaker: 'user',
      content: 'the ponies are in the paddock',
    });
    await memory.recordMessage({ speaker: 'user', content: 'the deploy key rotates on Fridays' });
    expect((await memory.recall({ query: 'ponnies', mode: 'lexical' })).items).toEqual([]);
    const { items } = await memory.recall({ query: 'ponnies', mode: 'semantic', limit: 1 });
    expect(items.map((i) => i.id)).toEqual([written.id]);
  });

  it('recalls lexically without an embedder, and refuses semantic or hybrid there, naming the mode', async () => {
    const memory = await open(null).memory();
    await memory.recordMessage({ speaker: 'user', content: 'tea' });
    expect((await memory.recall({ query: 'tea' })).recall.retrieval.method).toBe('lexical');
    for (const mode of ['semantic', 'hybrid'] as const) {
      const error: unknown = await memory.recall({ query: 'tea', mode }).catch((e: unknown) => e);
      expect(isMemoryError(error, 'VALIDATION_FAILED')).toBe(true);
      expect((error as MemoryError).issues.map((i) => [i.path, i.message])).toEqual([
        ['mode', 'needs an embedder (MEMLEDGER_EMBEDDINGS_URL or the embeddings option)'],
      ]);
    }
    const bad: unknown = await memory
      .recall({ query: 'tea', mode: 'fuzzy' as 'lexical' })
      .catch((e: unknown) => e);
    expect((bad as MemoryError).issues).toEqual([
      { path: 'mode', message: 'must be lexical, semantic or hybrid' },
    ]);
    expect((await memory.readEvents()).filter((e) => e.kind === 'recall')).toHaveLength(1);
  });

  it('refuses an oversampling that is not an integer from 1 to 64, naming it', async () => {
    for (const oversample of [0, 2.5, 65, Number.NaN]) {
      const error: unknown = await (async () => open({ oversample }).memory())().catch(
        (e: unknown) => e,
      );
      expect(isMemoryError(error, 'VALIDATION_FAILED')).toBe(true);
      expect((error as MemoryError).issues).toEqual([
        { path: 'oversample', message: 'must be an integer from 1 to 64' },
      ]);
    }
    const memory = await open({ oversample: 16, quantization: 'binary' }).memory();
    const written = await memory.recordMessage({
      speaker: 'user',
      content: 'ponies in the meadow',
    });
    await memory.recordMessage({ speaker: 'user', content: 'the deploy key rotates on Fridays' });
    const { items } = await memory.recall({ query: 'ponnies', mode: 'semantic', limit: 1 });
    expect(items.map((i) => i.id)).toEqual([written.id]);
  });

  it('fails with EMBEDDER_UNAVAILABLE and appends nothing when the provider is down', async () => {
    const memory = await open().memory();
    await memory.recordMessage({ speaker: 'user', content: 'tea' });
    down = true;
    const error: unknown = await memory.recall({ query: 'tea' }).catch((e: unknown) => e);
    expect(isMemoryError(error, 'EMBEDDER_UNAVAILABLE')).toBe(true);
    expect(await memory.readEvents()).toHaveLength(1);
  });

  it('falls back to lexical when configured to, records lexical and says why', async () => {
    const memory = await open({ onUnavailable: 'lexical' }).memory();
    const tea = await memory.recordMessage({ speaker: 'user', content: 'green tea' });
    down = true;
    const { recall, items, vectors } = await memory.recall({ query: 'tea' });
    expect(recall.retrieval.method).toBe('lexical');
    expect(items.map((i) => i.id)).toEqual([tea.id]);
    expect(vectors).toMatchObject({
      requested: 'hybrid',
      state: 'unavailable',
      reason: 'Embedder test is down.',
    });
  });

  it('says how far the vectors lag when it may embed nothing itself, and still finds new words in hybrid', async () => {
    const first = open();
    const memory = await first.memory();
    await memory.recordMessage({ speaker: 'user', content: 'old pony' });
    await memory.recall({ query: 'pony' });
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const again = kind.reopen();
    if (!again) return; // the in-memory store does not outlive its memledger
    const ledger = openMemledger({
      store: again,
      embeddings: { embedder: embedder(), follow: false, embedBeforeRecall: 0 },
    });
    opened.push(ledger);
    const later = await ledger.memory();
    const fresh = await later.recordMessage({ speaker: 'user', content: 'new ponies' });
    await later.recordMessage({ speaker: 'user', content: 'newer ponies' });
    const semantic = await later.recall({ query: 'new ponies', mode: 'semantic' });
    expect(semantic.vectors).toMatchObject({ state: 'lagging', indexedThroughSeq: 0, behind: 2 });
    expect(semantic.items.map((i) => (i.kind === 'message' ? i.content : i.text))).toEqual([
      'old pony',
    ]);
    const hybrid = await later.recall({ query: 'new ponies' });
    expect(hybrid.items.map((i) => i.id)).toContain(fresh.id);
  });

  it('never returns deleted content, whatever the mode', async () => {
    const memory = await open().memory();
    const gone = await memory.recordMessage({ speaker: 'user', content: 'pony pony pony' });
    const kept = await memory.recordMessage({ speaker: 'user', content: 'a kettle' });
    await memory.recall({ query: 'pony' });
    await memory.deleteContent({ targets: [gone.id], reason: 'asked' });
    for (const mode of ['semantic', 'hybrid'] as const) {
      const { items } = await memory.recall({ query: 'pony', mode, limit: 10 });
      expect(items.map((i) => i.id)).toEqual([kept.id]);
      const hits = await memory.search('pony', { mode, limit: 10 });
      expect(hits.map((h) => h.id)).toEqual([kept.id]);
    }
    const before = await memory.search('pony', { mode: 'semantic', asOfSeq: gone.seq });
    expect(before.map((h) => h.id)).toEqual([gone.id]);
  });

  it('embeds a text once: the same words in another memory and a rebuild ask the model nothing', async () => {
    const ledger = open();
    const a = await ledger.memory('a');
    await a.recordMessage({ speaker: 'user', content: 'Sophie is my kid' });
    await a.recall({ query: 'kid' });
    const b = await ledger.memory('b');
    await b.recordMessage({ speaker: 'user', content: 'Sophie is my kid' });
    await b.recall({ query: 'kid' });
    await a.rebuild();
    await a.recall({ query: 'kid', mode: 'semantic' });
    expect(texts.filter((t) => t === 'user: Sophie is my kid')).toHaveLength(1);
    expect(texts.filter((t) => t === 'kid')).toHaveLength(3);
  });

  it('embeds in the background after appends when it follows', async () => {
    const ledger = open({ follow: true });
    const memory = await ledger.memory();
    for (const content of ['one pony', 'two ponies', 'three ponies'])
      await memory.recordMessage({ speaker: 'user', content });
    await ledger.vectors!.idle();
    expect(ledger.vectors!.progress()).toEqual([
      expect.objectContaining({
        model: HASHING_MODEL,
        current: true,
        memories: 1,
        readyMemories: 1,
        behind: 0,
      }),
    ]);
    expect(texts).toHaveLength(3);
  });

  it('embeds what was appended while it was embedding, with no append after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const inner = embedder();
    let calls = 0;
    const gated = functionEmbedder({
      model: inner.model,
      dimensions: inner.dimensions,
      embed: async (batch) => {
        if (calls++ === 0) {
          started();
          await gate;
        }
        return inner.embed(batch);
      },
    });
    const ledger = open({ follow: true, embedder: gated });
    const memory = await ledger.memory();
    await memory.recordMessage({ speaker: 'user', content: 'one pony' });
    await inFlight;
    // Appended while the follower's first call is in flight: that catch-up read the log before.
    await memory.recordMessage({ speaker: 'user', content: 'two ponies' });
    release();
    await ledger.vectors!.idle();
    expect(texts).toEqual(['user: one pony', 'user: two ponies']);
    expect(ledger.vectors!.progress()[0]).toMatchObject({ readyMemories: 1, behind: 0 });
  });

  it('records the ids of a plugged-in retriever as external retrieval', async () => {
    const memory = await open(null, {
      retriever: {
        retrieve: ({ keywordSearch, query }) => keywordSearch(query, 1).map((h) => h.id),
      },
    }).memory();
    await memory.recordMessage({ speaker: 'user', content: 'tea' });
    const { recall } = await memory.recall({ query: 'tea' });
    expect(recall.retrieval.method).toBe('external');
    expect((recall as Sequenced<typeof recall>).recalled).toHaveLength(1);
  });
});
