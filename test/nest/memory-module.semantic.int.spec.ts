/**
 * Semantic and hybrid recall through MemoryModule's buses, with the module's `embeddings`
 * option (the hashing test embedder), on SQLite and on EventStoreDB (where the recall computes
 * in the store's append turn, after its embedding was done outside it).
 */
import {
  GetItemHistoryQuery,
  RecallCommand,
  RecordMessageCommand,
  SearchMemoryQuery,
  type MemoryModuleOptions,
} from '../../src/nest.js';
import { hashingEmbedder, HASHING_MODEL } from '../support/hashing-embedder.js';
import { nestStoreKinds, startMemoryApp, type MemoryApp } from './nest-stores.js';

describe.each(nestStoreKinds())('MemoryModule semantic recall on $name', (kind) => {
  let app: MemoryApp | undefined;
  beforeEach(async () => {
    await kind.setup();
    const options: MemoryModuleOptions = {
      store: kind.config(),
      embeddings: { embedder: hashingEmbedder({ dimensions: 32 }), follow: false },
    };
    app = await startMemoryApp(options);
  });
  afterEach(async () => {
    await app?.moduleRef.close();
    await kind.cleanup();
  });

  it('recalls and searches by mode, and the history says how each recall retrieved', async () => {
    const { commands, queries } = app!;
    const pony = await commands.execute(
      new RecordMessageCommand(undefined, {
        speaker: 'user',
        content: 'the ponies are in the paddock',
      }),
    );
    await commands.execute(
      new RecordMessageCommand(undefined, {
        speaker: 'user',
        content: 'the deploy key rotates on Fridays',
      }),
    );
    const semantic = await commands.execute(
      new RecallCommand(undefined, { query: 'ponnies', mode: 'semantic', limit: 1 }),
    );
    expect(semantic.recall.retrieval).toEqual({
      method: 'semantic',
      model: HASHING_MODEL,
      dimensions: 32,
      fusion: null,
      vectors: { quantization: 'none', oversample: null, cells: 0, probes: null },
    });
    expect(semantic.items.map((i) => i.id)).toEqual([pony.id]);
    const hybrid = await commands.execute(new RecallCommand(undefined, { query: 'ponnies' }));
    expect(hybrid.recall.retrieval.method).toBe('hybrid');
    const hits = await queries.execute(
      new SearchMemoryQuery(undefined, 'ponnies', { mode: 'semantic', limit: 1 }),
    );
    expect(hits.map((h) => h.id)).toEqual([pony.id]);
    const lexical = await queries.execute(
      new SearchMemoryQuery(undefined, 'ponnies', { mode: 'lexical' }),
    );
    // A typo stemming does not mend: words alone find nothing.
    expect(lexical).toEqual([]);
    const history = await queries.execute(new GetItemHistoryQuery(undefined, pony.id));
    expect(history.recalls.map((r) => r.retrieval.method)).toEqual(['semantic', 'hybrid']);
  });
});
