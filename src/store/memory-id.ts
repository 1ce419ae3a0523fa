import { DEFAULT_MEMORY_ID, MemoryId, parseOrThrow } from '../core/index.js';

/** Validates a memory id (default `default`), or throws `INVALID_MEMORY_ID`. */
export function checkMemoryId(memoryId: string = DEFAULT_MEMORY_ID): string {
  return parseOrThrow(
    MemoryId,
    memoryId,
    `memory id ${JSON.stringify(memoryId)}`,
    'INVALID_MEMORY_ID',
  );
}
