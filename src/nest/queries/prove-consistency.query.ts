import { Query } from '@nestjs/cqrs';
import type { ConsistencyProofJson } from '../../memory/index.js';

/** The proof that a memory's tree of `from` leaves is a prefix of its tree of `to` leaves. */
export class ProveConsistencyQuery extends Query<ConsistencyProofJson> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    readonly from: number,
    /** The larger size. @defaultValue the head */
    readonly to?: number,
  ) {
    super();
  }
}
