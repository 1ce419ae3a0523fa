/**
 * One item by id from the read models, with the acts done to it: the Deletion that removed it
 * and the Erasure that destroyed its words, loaded in the same read as the item itself.
 */
import type { Deletion, Erasure, Recall, Sequenced } from '../core/index.js';
import type { ReadModelDb } from '../read-models/index.js';
import type { EventLookup, ItemRecall } from './memory.types.js';

/** The item `id` of memory `mem` and its acts, or undefined when the read models hold no such id. */
export function lookUpItem(
  db: ReadModelDb,
  mem: number,
  id: string,
): Omit<EventLookup, 'deleted'> | undefined {
  return db.read(() => {
    const item = db.queries.item(mem, id);
    if (!item) return undefined;
    const acts = [item.deletedSeq, item.erasedSeq].filter((seq) => seq !== null);
    const [event, ...loaded] = db.queries.events(mem, [item.seq, ...acts]);
    const act = (seq: number | null) => (seq === null ? null : loaded[acts.indexOf(seq)]);
    return (
      event && {
        event,
        deletedBy: (act(item.deletedSeq) as Sequenced<Deletion> | undefined) ?? null,
        erasedBy: (act(item.erasedSeq) as Sequenced<Erasure> | undefined) ?? null,
      }
    );
  });
}

/**
 * The recalls that put the item at `seq` in a context (the first `limit`), each with who was
 * authenticated asking: read from the Recall events themselves, in one read for all.
 */
export function itemRecalls(
  db: ReadModelDb,
  mem: number,
  seq: number,
  limit: number,
): ItemRecall[] {
  return db.read(() => {
    const uses = db.queries.recallUses(mem, seq, limit);
    const recalls = db.queries.events<Sequenced<Recall>>(
      mem,
      uses.map((use) => use.seq),
    );
    return uses.map((use, i) => ({ ...use, recordedBy: recalls[i]?.recordedBy ?? null }));
  });
}
