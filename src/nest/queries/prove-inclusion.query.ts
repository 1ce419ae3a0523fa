import { Query } from '@nestjs/cqrs';
import type { InclusionProofJson } from '../../memory/index.js';

/**
 * The proof that the event at `seq` is leaf `seq` of a memory's tree of `size` leaves: its leaf
 * bytes, leaf hash and RFC 9162 inclusion path (base64), to check against a checkpoint.
 */
export class ProveInclusionQuery extends Query<InclusionProofJson> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    readonly seq: number,
    /** The tree size. @defaultValue the head */
    readonly size?: number,
  ) {
    super();
  }
}
