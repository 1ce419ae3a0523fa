import type { MemoryStore } from '../../src/store/event-log.port.js';

/** How the contract suite gets stores of one adapter. */
export interface StoreHarness {
  /** Opens a fresh, empty store. */
  open(): Promise<MemoryStore>;
  /** Durable stores: closes `store` and opens the same data again. Absent for in-memory. */
  reopen?(store: MemoryStore): Promise<MemoryStore>;
  /**
   * A second, independent store instance on the same data (another process's view): for
   * concurrency tests. Absent when the adapter has no such thing.
   */
  openPeer?(store: MemoryStore): Promise<MemoryStore>;
  /** Releases whatever `open` created (files, servers) after each test. */
  cleanup?(): Promise<void>;
}

/** Registers a test that this adapter cannot run, with the reason in its printed title. */
export function itNotApplicable(title: string, reason: string): void {
  it.skip(`${title} [not applicable: ${reason}]`, () => undefined);
}
