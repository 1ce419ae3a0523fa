import { Query } from '@nestjs/cqrs';
import type { Sequenced } from '../../core/index.js';

/** Options of {@link ReadEventsQuery}. */
export interface ReadEventsOptions {
  /** First seq to return. @defaultValue 0 */
  readonly fromSeq?: number | undefined;
  /** At most this many events, 1 to 1000 (`VALIDATION_FAILED` beyond). @defaultValue 100 */
  readonly limit?: number | undefined;
}

/**
 * A page of a memory's log in seq order: replay from any revision. A page stops early once its
 * events add up to about 4 MiB of JSON (at least one event): continue from the last seq + 1.
 */
export class ReadEventsQuery extends Query<Sequenced[]> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** From which seq, and how many. */
    readonly options: ReadEventsOptions = {},
  ) {
    super();
  }
}
