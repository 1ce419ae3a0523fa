import { Query } from '@nestjs/cqrs';
import type { ItemHistory } from '../../memory/index.js';

/** The history of one item: when written, every recall that used it, the deletion that removed it. */
export class GetItemHistoryQuery extends Query<ItemHistory> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The item's event id. */
    readonly id: string,
  ) {
    super();
  }
}
