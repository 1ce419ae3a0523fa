/**
 * How far the read models of the open memories stand behind their logs. Read models catch up on
 * demand (before each query), so a lag only builds up where another process appends to a memory
 * this one has not queried since; the gauges and the readiness check report it.
 */
import type { Memledger } from '../index.js';
import type { MemoryStore } from '../../store/event-log.port.js';
import { untraced } from './traced-memledger.js';

/** The lag of the memories looked at. */
export interface ReadModelLag {
  /** The largest number of events a memory's read models lack. */
  readonly events: number;
  /** The longest time a memory's read models have been seen behind, in seconds. */
  readonly seconds: number;
  /** Memories looked at (the most recently used open ones). */
  readonly memories: number;
}

/** Measures read-model lag; remembers since when each memory has been seen behind. */
export function readModelLag(
  memledger: Memledger,
  store: MemoryStore,
  options: { readonly maxMemories?: number; readonly now?: () => number } = {},
): () => Promise<ReadModelLag> {
  const behindSince = new Map<string, number>();
  const now = options.now ?? Date.now;
  const max = options.maxMemories ?? 100;
  return async () => {
    // openMemories() lists the least recently used first.
    const handles = memledger.openMemories().slice(-max).map(untraced);
    let events = 0;
    let seconds = 0;
    const at = now();
    for (const handle of handles) {
      const head = (await store.log(handle.memoryId).lastSeq()) ?? -1;
      const lag = Math.max(0, head - (handle.readModelSeq ?? -1));
      if (lag === 0) {
        behindSince.delete(handle.memoryId);
        continue;
      }
      const since = behindSince.get(handle.memoryId) ?? at;
      behindSince.set(handle.memoryId, since);
      events = Math.max(events, lag);
      seconds = Math.max(seconds, (at - since) / 1000);
    }
    return { events, seconds, memories: handles.length };
  };
}
