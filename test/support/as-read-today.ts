/**
 * What an older release recorded, as this release reads it: the fields later schema versions
 * added, filled the way their upcasters fill them (src/core/versions.ts). Golden fixtures keep
 * the states their release computed; the tests compare against those, lifted by this.
 */
import type { MemoryState } from '../../src/core/index.js';

const LEXICAL = { method: 'lexical', model: null, dimensions: null, fusion: null, vectors: null };

/** An event (or any JSON value holding events) with the fields added since it was written. */
export function eventAsReadToday<T>(value: T): T {
  if (Array.isArray(value)) return value.map(eventAsReadToday) as T;
  if (typeof value !== 'object' || value === null) return value;
  const fields = value as Record<string, unknown>;
  if (typeof fields.kind !== 'string' || typeof fields.id !== 'string') {
    return Object.fromEntries(
      Object.entries(fields).map(([key, inner]) => [key, eventAsReadToday(inner)]),
    ) as T;
  }
  const lifted: Record<string, unknown> = { ...fields };
  lifted.recordedBy ??= null;
  if (fields.kind === 'recall') lifted.retrieval ??= LEXICAL;
  return lifted as T;
}

/** A state an older release computed, as this release computes it from the same log. */
export const stateAsReadToday = (state: MemoryState): MemoryState => eventAsReadToday(state);

/** The stored fields of an event as memledger 0.1.0 wrote them: without the fields added since. */
export function asVersion1Fields<T extends object>(fields: T): T {
  const {
    recordedBy: _recordedBy,
    retrieval: _retrieval,
    ...old
  } = fields as Record<string, unknown>;
  return old as T;
}
