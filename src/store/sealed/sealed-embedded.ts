/**
 * What the read models see of a sealed store that lends them its database (the SQLite store):
 * page loads and the append hook get plain words, and the append hook takes them from the
 * caller's own events (`PlainHandoff`) rather than opening what was just sealed.
 */
import { deepFreeze, markValidated, type MemoryEvent, type Sequenced } from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import type { EmbeddedDatabase } from '../event-log.port.js';
import { isSealed, openEvents } from './content-sealing.js';

/**
 * The plain events of the appends in flight, so the append hook can take the words the caller
 * gave instead of opening what was just sealed (a key lookup and a decryption per event saved on
 * the write path). The SQLite adapter runs its hook when the append's group commits
 * (src/db/group-commit.ts), while the caller's append is still awaiting: an event is taken from
 * here when exactly one append in flight carries its id — then it is the one written, since
 * hooks only see this process's own appends. Two in flight with one id (a retry racing its
 * original, or a conflict), or none (a hook run later, a catch-up), and the event is opened with
 * its key: slower, never wrong.
 */
export class PlainHandoff {
  /** `memoryId \0 id` -> the plain events of that id in the appends in flight. */
  private readonly inFlight = new Map<string, MemoryEvent[]>();

  /** Runs `append` with the plain `events` on hand until it settles. */
  async during<T>(
    memoryId: string,
    events: readonly MemoryEvent[],
    append: () => Promise<T>,
  ): Promise<T> {
    const plain = events.filter((event) => !isSealed(event));
    for (const event of plain) {
      const key = keyOf(memoryId, event.id);
      const list = this.inFlight.get(key);
      if (list) list.push(event);
      else this.inFlight.set(key, [event]);
    }
    try {
      return await append();
    } finally {
      for (const event of plain) {
        const key = keyOf(memoryId, event.id);
        const list = this.inFlight.get(key)!;
        if (list.length === 1) this.inFlight.delete(key);
        else list.splice(list.indexOf(event), 1);
      }
    }
  }

  /** `written` with the words the caller gave, where it has them; the rest opened with keys. */
  plain(keys: KeyStore, memoryId: string, written: readonly Sequenced[]): Sequenced[] {
    const onHand = (event: Sequenced) => {
      const list = this.inFlight.get(keyOf(memoryId, event.id));
      return list?.length === 1 ? list[0] : undefined;
    };
    const rest = written.filter((event) => isSealed(event) && !onHand(event));
    const opened = new Map(openEvents(keys, memoryId, rest).map((event) => [event.id, event]));
    return written.map((event) => {
      if (!isSealed(event)) return event;
      const plain = onHand(event);
      return plain ? withSeq(plain, event.seq) : opened.get(event.id)!;
    });
  }
}

const keyOf = (memoryId: string, id: string) => `${memoryId}\u0000${id}`;

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
    path: embedded.path,
    wal: embedded.wal,
    onAppend: (hook) =>
      embedded.onAppend((memoryId, written) => {
        // The stored form stays sealed; the event is the caller's words (or opened).
        const plain = handoff.plain(
          keys,
          memoryId,
          written.map((projected) => projected.event),
        );
        hook(
          memoryId,
          written.map((projected, i) => ({ event: plain[i]!, stored: projected.stored })),
        );
      }),
    projectedRange(memoryId, fromSeq, toSeq) {
      // The stored form stays sealed; the event is opened.
      const read = embedded.projectedRange(memoryId, fromSeq, toSeq);
      const plain = openEvents(
        keys,
        memoryId,
        read.map((projected) => projected.event),
      );
      return read.map((projected, i) => ({ event: plain[i]!, stored: projected.stored }));
    },
    eventsAt(memoryId, seqs) {
      const events = embedded.eventsAt(memoryId, seqs);
      const opened = openEvents(keys, memoryId, [...events.values()]);
      return new Map(opened.map((event) => [event.seq, event]));
    },
    // Ids are never sealed.
    seqsOf: (memoryId, ids) => embedded.seqsOf(memoryId, ids),
  };
}
