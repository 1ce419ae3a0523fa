import { Query } from '@nestjs/cqrs';
import type { CheckpointNote } from '../../memory/index.js';

/**
 * A memory's checkpoint (origin `<log name>/<memory id>`, size, root) at the head or at `size`,
 * as a signed note when the log has a key (`signed: false` and the bare text otherwise).
 */
export class GetCheckpointQuery extends Query<CheckpointNote> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The tree size, at most the log's head (`TREE_SIZE_PAST_HEAD` beyond). @defaultValue the head */
    readonly size?: number,
  ) {
    super();
  }
}
