import type { MemoryEvent } from './events.js';

/** JSON with object keys sorted, so equal content gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** True when two events are the same content, whatever their seq (invariant 9). */
export function sameContent(a: MemoryEvent, b: MemoryEvent): boolean {
  return canonicalJson({ ...a, seq: null }) === canonicalJson({ ...b, seq: null });
}
