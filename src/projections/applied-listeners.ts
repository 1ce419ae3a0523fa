/**
 * Who listens to the events a projection applied to one memory (the live `applied$` of the read
 * models): told once the events are committed.
 */
import type { Sequenced } from '../core/index.js';
import type { ProjectedEvent, ProjectionHandler } from '../store/projection.port.js';
import type { Applied } from './projection-steps.js';

/** Called with the events a projection applied to one memory, in seq order. */
export type AppliedListener = (events: readonly Sequenced[]) => void;

/** Listeners by projection and memory. */
export class AppliedListeners {
  private readonly byKey = new Map<string, Set<AppliedListener>>();

  /** Adds a listener; returns its remover. */
  add(projection: string, memoryId: string, listener: AppliedListener): () => void {
    const key = keyOf(projection, memoryId);
    const set = this.byKey.get(key) ?? new Set();
    set.add(listener);
    this.byKey.set(key, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  /** Whether anyone listens (so nothing is prepared for nobody). */
  has(projection: string, memoryId: string): boolean {
    return this.byKey.has(keyOf(projection, memoryId));
  }

  /** Tells each listener of the projection and memory what it applied. */
  notify(projection: string, memoryId: string, applied: readonly ProjectedEvent[]): void {
    const set = this.byKey.get(keyOf(projection, memoryId));
    if (!set || applied.length === 0) return;
    const events = applied.map((projected) => projected.event);
    for (const listener of [...set]) listener(events);
  }

  /** Tells listeners what a committed transaction applied. */
  notifyAll(memoryId: string, applied: readonly Applied[]): void {
    for (const { name, applied: events } of applied) this.notify(name, memoryId, events);
  }

  /**
   * Tells listeners what the store's transaction applied once it ended, if it committed (the
   * checkpoints of `handlerOf` each projection say): a microtask queued inside a synchronous
   * transaction runs after it.
   */
  notifyAfterCommit(
    memoryId: string,
    applied: readonly Applied[],
    handlerOf: (name: string) => ProjectionHandler,
  ): void {
    for (const { name, applied: events } of applied) {
      const last = events.at(-1)?.event.seq;
      if (last === undefined || !this.has(name, memoryId)) continue;
      const handler = handlerOf(name);
      queueMicrotask(() => {
        try {
          if (handler.checkpoint(memoryId) >= last) this.notify(name, memoryId, events);
        } catch {
          // Closed meanwhile: nobody is left to tell.
        }
      });
    }
  }
}

const keyOf = (projection: string, memoryId: string) => `${projection}\u0000${memoryId}`;
