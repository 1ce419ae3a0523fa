/**
 * The live `applied$` follows the log through a subscription and, while the store is
 * unavailable, pauses before subscribing again. A follower stopped during that pause stops at
 * once: a timer left pending would hold the process open (a test worker, a short script).
 */
import { MemoryError } from '../../src/core/index.js';
import { openMemledger } from '../../src/memory/index.js';
import type { EventLog, MemoryStore } from '../../src/store/event-log.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';

/** `target`'s member `key`, a method bound to `target` (so private state keeps working). */
function memberOf<T extends object>(target: T, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key);
  return typeof value === 'function'
    ? (value as (...args: unknown[]) => unknown).bind(target)
    : value;
}

/** An in-memory store whose logs cannot be subscribed to, as when the server is unreachable. */
function unsubscribableStore(): { store: MemoryStore; attempts: () => number } {
  let attempts = 0;
  const unavailable = () => {
    attempts++;
    throw new MemoryError('STORE_UNAVAILABLE', 'The test store cannot be reached.');
  };
  const logOf = (log: EventLog): EventLog =>
    new Proxy(log, {
      get: (target, key) => (key === 'subscribe' ? unavailable : memberOf(target, key)),
    });
  const inner = openInMemoryStore();
  const store = new Proxy(inner, {
    get: (target, key) =>
      key === 'log' ? (memoryId?: string) => logOf(target.log(memoryId)) : memberOf(target, key),
  });
  return { store, attempts: () => attempts };
}

/** Timers that keep the process alive (unref'd ones are not listed). */
const pendingTimers = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

describe('following a memory live while its store is unavailable', () => {
  it('stops at once when the last listener leaves during the pause before subscribing again, leaving no timer', async () => {
    const { store, attempts } = unsubscribableStore();
    const memledger = openMemledger({ store });
    try {
      const memory = await memledger.memory();
      const before = pendingTimers();
      const errors: unknown[] = [];
      const listening = memory.applied$.subscribe({ error: (error) => errors.push(error) });
      await waitFor(() => attempts() >= 1);
      // The follower now waits before subscribing again: that pause is a pending timer.
      expect(pendingTimers()).toBe(before + 1);
      listening.unsubscribe();
      await new Promise((resolve) => setImmediate(resolve));
      expect(pendingTimers()).toBe(before);
      expect(attempts()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await memledger.close();
    }
  });
});
