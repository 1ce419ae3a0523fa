import { Command } from '@nestjs/cqrs';
import type { ErasureInput } from '../../core/index.js';
import type { ErasureOutcome } from '../../memory/index.js';

/**
 * Erases content already deleted: its words become unrecoverable (the per-item keys are
 * destroyed) while the ids, seqs, times and both acts stay on record. Result: the stored
 * Erasure and whether its words are gone from disk yet (`cleanup`). Refused with `ERASURE_TARGET_NOT_DELETED`, `ERASURE_TARGET_NOT_CONTENT`,
 * `ERASURE_TARGET_UNKNOWN`, `ALREADY_ERASED`, or `ERASURE_UNAVAILABLE` on a store without keys.
 */
export class EraseContentCommand extends Command<ErasureOutcome> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields (targets, reason, requestedBy...), validated by the core factory. */
    readonly input: ErasureInput,
  ) {
    super();
  }
}
