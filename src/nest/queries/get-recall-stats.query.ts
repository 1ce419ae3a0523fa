import { Query } from '@nestjs/cqrs';
import type { MemoryState } from '../../core/index.js';

/** Recall statistics per item of a memory: count, last recalled at and at which seq. */
export class GetRecallStatsQuery extends Query<MemoryState['recallStats']> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
  ) {
    super();
  }
}
