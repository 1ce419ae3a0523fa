/** The key store's in-process cache of unwrapped keys. */
import type { ItemKey } from './key-store.port.js';

/**
 * Unwrapped keys and tombstones by `memory/item`, bounded (least recently used goes first) and
 * dropped whenever the file changed under another connection. Callers get copies; the cache's
 * own buffers are zeroed when they leave it.
 */
export class KeyCache {
  private readonly entries = new Map<string, ItemKey>();
  private version: number | undefined;
  constructor(private readonly limit: number) {}

  sync(dataVersion: number): void {
    if (dataVersion !== this.version) this.clear();
    this.version = dataVersion;
  }
  get(aad: string): ItemKey | undefined {
    const value = this.entries.get(aad);
    if (value !== undefined) {
      this.entries.delete(aad);
      this.entries.set(aad, value);
    }
    return value;
  }
  set(aad: string, value: ItemKey): ItemKey {
    if (this.limit <= 0) return value;
    this.drop(aad);
    if (this.entries.size >= this.limit) this.drop(this.entries.keys().next().value!);
    this.entries.set(aad, value);
    return value;
  }
  clear(): void {
    for (const value of this.entries.values()) if (value !== 'erased') value.fill(0);
    this.entries.clear();
  }
  private drop(aad: string): void {
    const value = this.entries.get(aad);
    if (value !== undefined && value !== 'erased') value.fill(0);
    this.entries.delete(aad);
  }
}
