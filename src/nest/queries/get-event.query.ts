import { Query } from '@nestjs/cqrs';
import type { EventLookup } from '../../memory/index.js';

/** One event by id, deleted content included and marked so; `EVENT_NOT_FOUND` when absent. */
export class GetEventQuery extends Query<EventLookup> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event id. */
    readonly id: string,
  ) {
    super();
  }
}
