/**
 * The check after each erasure kill: reopen the SQLite file with its key store (the sealed
 * store's repair and scrub run on open), then every message must be either fully erased — its
 * Erasure on record, its key a tombstone, every read the marker, no word in the read models nor
 * in the bytes of any file while the store is still open — or not erased at all — no Erasure,
 * its key intact, its words readable. No intent may stay pending.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isContent, isErased, replay, type Sequenced } from '../src/core/index.js';
import { masterKeyFromBytes, openSqliteKeyStore } from '../src/keys/index.js';
import { openMemledger } from '../src/memory/index.js';
import { sealedStore } from '../src/store/sealed/sealed-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';

/** The words of item `id`: one search token that depends on the id alone. */
export function canaryOf(id: string): string {
  return `canary${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** What the reopened file holds after one kill. */
export interface ErasureCheck {
  /** Items whose Erasure is on record, and those with none. */
  readonly erased: Set<string>;
  readonly kept: Set<string>;
  /** Intents the kill left behind, found at reopen before the repair. */
  readonly pendingBefore: number;
  /** Intents still pending after the repair (must be 0). */
  readonly pending: number;
  /** Items neither fully erased nor fully kept, with why (must be empty). */
  readonly torn: string[];
  /**
   * Erased words found in the files while the reopened store still runs, before any clean close
   * (must be empty: the scrub on open removed every page image from before the erasures).
   */
  readonly residue: string[];
}

/** Reopens `path` (repair included), checks every message of `memoryId`, closes cleanly. */
export async function checkErasures(
  path: string,
  keyHex: string,
  memoryId: string,
): Promise<ErasureCheck> {
  const keys = openSqliteKeyStore(`${path}.keys`, {
    masterKey: masterKeyFromBytes(Buffer.from(keyHex, 'hex')),
    create: false,
  });
  const pendingBefore = keys.pendingErasures().length;
  const store = sealedStore(openSqliteStore({ path }), keys);
  const memledger = openMemledger({ store });
  try {
    const memory = await memledger.memory(memoryId);
    const pending = keys.pendingErasures().length;
    const events: Sequenced[] = await memory.readEvents();
    const onRecord = replay(events).erased;
    const items = events.filter(isContent);
    const found = keys.lookup(
      memoryId,
      items.map((i) => i.id),
    );
    const state = JSON.stringify(await memory.state());
    const erased = new Set<string>();
    const kept = new Set<string>();
    const torn: string[] = [];
    for (const item of items) {
      const key = found.get(item.id);
      const words = canaryOf(item.id);
      const lookup = await memory.getEvent(item.id);
      if (onRecord[item.id]) {
        erased.add(item.id);
        if (key !== 'erased') torn.push(`${item.id}: Erasure on record, key alive`);
        if (!isErased(item) || !isErased(lookup.event))
          torn.push(`${item.id}: Erasure on record, words still read`);
        if (state.includes(words)) torn.push(`${item.id}: erased words in the state`);
        if ((await memory.search(words)).length > 0) torn.push(`${item.id}: erased words found`);
      } else {
        kept.add(item.id);
        if (!(key instanceof Buffer)) torn.push(`${item.id}: no Erasure, key ${String(key)}`);
        if (item.kind !== 'message' || item.content !== `words ${words} here`)
          torn.push(`${item.id}: no Erasure, words unreadable`);
        if (lookup.erasedBy !== null) torn.push(`${item.id}: read models name an erasure`);
      }
    }
    // Scanned before the close: a clean close checkpoints on its own and would hide residue.
    const residue = wordsInFiles(path, [...erased].map(canaryOf));
    return { erased, kept, pendingBefore, pending, torn, residue };
  } finally {
    await memledger.close();
  }
}

/** The files (event file, key store, their -wal/-shm) holding any of `words`, with where and what surrounds it. */
export function wordsInFiles(path: string, words: readonly string[]): string[] {
  const found: string[] = [];
  for (const base of [path, `${path}.keys`])
    for (const file of [base, `${base}-wal`, `${base}-shm`]) {
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      for (const word of words) {
        // The whole word, or its last 8 characters (a word split across two pages).
        const at = bytes.indexOf(word) >= 0 ? bytes.indexOf(word) : bytes.indexOf(word.slice(-8));
        if (at < 0) continue;
        // What surrounds it, so a failure says whether it is words or a chance match.
        const around = JSON.stringify(
          bytes.subarray(Math.max(0, at - 24), at + 32).toString('latin1'),
        );
        found.push(`${word} in ${file} at byte ${at}: ${around}`);
      }
    }
  return found;
}
