/**
 * Issue 10's physical test: after erasures and a clean stop, the bytes of every file a store
 * keeps — the SQLite event file, the read-model file and the EventStoreDB id index, the key
 * store, each with its -wal and -shm — hold neither the words of an erased item nor its data
 * key, wrapped or not; nor does an export (the JSON Lines of the sealed log). The same scans
 * find a live item's words and wrapped key, so they can find what is there.
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Sequenced } from '../../src/core/index.js';
import { readAll } from '../support/collect.js';
import { canary, erasureStoreKinds, type ErasureFiles } from '../support/erasure-stores.js';

const kinds = erasureStoreKinds().filter((kind) => kind.durable);

/** Every file of `files` with its -wal and -shm, by path. */
function bytesOf(files: ErasureFiles): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const path of [files.log, files.readModels, files.idIndex, files.keyStore]) {
    if (path === undefined) continue;
    for (const file of [path, `${path}-wal`, `${path}-shm`])
      if (existsSync(file)) out.set(file, readFileSync(file));
  }
  return out;
}

/** The files whose bytes hold `needle` (a string is searched as UTF-8). */
function holding(files: Map<string, Buffer>, needle: Buffer | string): string[] {
  return [...files].filter(([, bytes]) => bytes.includes(needle)).map(([file]) => file);
}

/** A canary's distinctive tail: FTS pages store terms prefix-compressed, so scan for it too. */
const tail = (word: string) => word.slice(-8);

/** The wrapped keys as the key store holds them, read on a connection of the test's own. */
function wrappedKeys(path: string, ids: readonly string[]): Map<string, Buffer> {
  const db = new Database(path, { readonly: true });
  try {
    const select = db.prepare<[string], Buffer>('SELECT wrapped FROM item_keys WHERE item_id = ?');
    return new Map(ids.map((id) => [id, select.pluck().get(id)!]));
  } finally {
    db.close();
  }
}

for (const kind of kinds) {
  describe(`the files of ${kind.name} after erasure`, () => {
    it('hold no word and no key of an erased item after a clean stop; an export holds no word either', async () => {
      const env = await kind.open();
      const { memory } = env;
      const written: { id: string; words: string[] }[] = [];
      // Enough items for several pages, so erased rows sit among kept ones.
      for (let i = 0; i < 120; i++) {
        const words = [canary(), canary()];
        const padding = `ledger entry ${i} `.repeat(8);
        const item =
          i % 3 === 2
            ? await memory.addDocument({ name: `${words[0]}.md`, text: `${padding} ${words[1]}` })
            : await memory.recordMessage({
                speaker: 'user',
                content: `${padding} ${words[0]} ${words[1]}`,
              });
        written.push({ id: item.id, words });
      }
      const erased = written.filter((_, i) => i % 7 === 3);
      const live = written.filter((_, i) => i % 7 !== 3);
      const dataKeys = env.keys.lookup(
        env.memoryId,
        written.map((w) => w.id),
      );
      const wrapped = wrappedKeys(
        env.files.keyStore,
        written.map((w) => w.id),
      );
      // Half through delete then erase, half through delete-and-erase; a recall and searches
      // first, so the words went through every read model. (A recall's query is on record as
      // asked: it names no canary here.)
      await memory.recall({ query: 'ledger entry', limit: 100 });
      for (const item of erased) await memory.search(item.words[1]!);
      for (const [i, item] of erased.entries()) {
        if (i % 2 === 0) {
          await memory.deleteContent({ targets: [item.id], reason: 'forget' });
          await memory.eraseContent({ targets: [item.id], reason: 'erasure request' });
        } else {
          await memory.deleteAndErase({ targets: [item.id], reason: 'forget me' });
        }
      }
      const exported = (await readAll(env.log)).map((e: Sequenced) => JSON.stringify(e)).join('\n');
      await env.close();

      const files = bytesOf(env.files);
      expect([...files.keys()].length).toBeGreaterThanOrEqual(2);
      const found: string[] = [];
      for (const item of erased) {
        for (const word of item.words)
          for (const needle of [word, tail(word)])
            for (const file of holding(files, needle)) found.push(`${needle} in ${file}`);
        const key = dataKeys.get(item.id);
        expect(key).toBeInstanceOf(Buffer);
        for (const file of holding(files, key as Buffer))
          found.push(`data key of ${item.id} in ${file}`);
        for (const file of holding(files, wrapped.get(item.id)!))
          found.push(`wrapped key of ${item.id} in ${file}`);
        for (const word of item.words)
          if (exported.includes(word)) found.push(`${word} in the export`);
      }
      expect(found).toEqual([]);

      // The scans find what is there: a live item's words (in the search index: the log holds
      // them sealed) and its wrapped key.
      const readModelFile = env.files.log ?? env.files.readModels!;
      const sample = live[live.length - 1]!;
      expect(holding(files, tail(sample.words[1]!))).toContain(readModelFile);
      expect(holding(files, wrapped.get(sample.id)!)).toEqual([env.files.keyStore]);
      // The sealed event file holds no live words in plain text outside the read models' copy,
      // and the export (opened through the key store) shows them.
      expect(exported).toContain(sample.words[1]);
      // Reopened, the erased items are markers and the live ones read back.
      const again = await kind.reopen({ ...env, close: async () => undefined });
      try {
        expect((await again.memory.getEvent(erased[0]!.id)).event).toMatchObject({ erased: true });
        expect(JSON.stringify((await again.memory.getEvent(sample.id)).event)).toContain(
          sample.words[1],
        );
      } finally {
        await again.close();
      }
    });
  });
}
