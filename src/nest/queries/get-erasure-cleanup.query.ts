import { Query } from '@nestjs/cqrs';
import type { ErasureCleanupStatus } from '../../memory/index.js';

/**
 * Whether the words of every erasure are gone from disk, or why the scrub of old page images is
 * still pending (a reader holds an older snapshot of a file).
 */
export class GetErasureCleanupQuery extends Query<ErasureCleanupStatus> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
  ) {
    super();
  }
}
