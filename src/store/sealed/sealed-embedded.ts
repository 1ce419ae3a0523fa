/**
 * What the read models see of a sealed store that lends them its database (the SQLite store):
 * page loads and the append hook get plain words, and the append hook takes them from the
 * caller's own events (`PlainHandoff`) rather than opening what was just sealed.
 */
import { deepFreeze, markValidated, type MemoryEvent, type Sequenced } from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import type { EmbeddedDatabase } from '../event-log.port.js';
import { isSealed, openEvents } from './content-sealing.js';

const NONE: ReadonlyMap<string, MemoryEvent> = new Map();

/**
 * The plain events of the append running now, by id: the SQLite adapter runs its append hook
 * synchronously inside the append call itself (before its first await), so the hook can take
 * the words the caller gave instead of opening what was just sealed (a key lookup and a
 * decryption per event saved on the write path). A hook run later finds nothing on hand and
 * opens the events with their keys: slower, never wrong.
 */
export class PlainHandoff {
  private memoryId: string | undefined;
  private byId: ReadonlyMap<string, MemoryEvent> = NONE;

  /** Starts `append` with the plain `events` on hand, and ends the handoff once it returned. */
  during<T>(memoryId: string, events: readonly MemoryEvent[], append: () => T): T {
    this.memoryId = memoryId;
    this.byId = new Map(events.map((event) => [event.id, event]));
    try {
      return append();
    } finally {
      this.memoryId = undefined;
      this.byId = NONE;
    }
  }

  /** `written` with the words the caller gave, where it has them; the rest opened with keys. */
  plain(keys: KeyStore, memoryId: string, written: readonly Sequenced[]): Sequenced[] {
    if (this.memoryId !== memoryId) return openEvents(keys, memoryId, written);
    const rest = written.filter((event) => isSealed(event) && !this.byId.has(event.id));
    const opened = new Map(openEvents(keys, memoryId, rest).map((event) => [event.id, event]));
    return written.map((event) => {
      if (!isSealed(event)) return event;
      const plain = this.byId.get(event.id);
      return plain ? withSeq(plain, event.seq) : opened.get(event.id)!;
    });
  }
}

/** A frozen, validated copy of a plain event with the seq the store gave it. */
export const withSeq = (event: MemoryEvent, seq: number): Sequenced =>
  markValidated(deepFreeze({ ...event, seq }));

/** The read models' view of the store's database: page loads and the append hook see plain words. */
export function sealedEmbedded(
  embedded: EmbeddedDatabase,
  keys: KeyStore,
  handoff: PlainHandoff,
): EmbeddedDatabase {
  return {
    database: embedded.database,
    onAppend: (hook) =>
      embedded.onAppend((memoryId, written) =>
        hook(memoryId, handoff.plain(keys, memoryId, written)),
      ),
    eventsAt(memoryId, seqs) {
      const events = embedded.eventsAt(memoryId, seqs);
      const opened = openEvents(keys, memoryId, [...events.values()]);
      return new Map(opened.map((event) => [event.seq, event]));
    },
    // Ids are never sealed.
    seqsOf: (memoryId, ids) => embedded.seqsOf(memoryId, ids),
  };
}
