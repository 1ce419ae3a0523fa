import { Query } from '@nestjs/cqrs';
import type { StatePage } from '../../memory/index.js';

/** Options of {@link GetMemoryStateQuery}. */
export interface GetMemoryStateOptions {
  /** The state as it stood right after this seq. @defaultValue the current state */
  readonly upToSeq?: number | undefined;
  /** Items to skip in each visible list. @defaultValue 0 */
  readonly offset?: number | undefined;
  /** Items per visible list, 1 to 1000. @defaultValue 100 */
  readonly limit?: number | undefined;
}

/** A page of a memory's state (now, or as of `upToSeq`) with totals, deletions and recall stats. */
export class GetMemoryStateQuery extends Query<StatePage> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** Which state and which page. */
    readonly options: GetMemoryStateOptions = {},
  ) {
    super();
  }
}
