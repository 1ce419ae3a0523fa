import { Command } from '@nestjs/cqrs';
import type { Deletion, DeletionInput, Sequenced } from '../../core/index.js';
import type { DeletionAndErasure } from '../../memory/index.js';

/** Options of {@link DeleteContentCommand}. */
export interface DeleteContentOptions<E extends boolean = boolean> {
  /**
   * Also erase the targets: a Deletion and an Erasure of the same targets, reason and requester
   * appended atomically (`ERASURE_UNAVAILABLE` on a store without keys, and nothing written).
   * @defaultValue false
   */
  readonly erase?: E;
}

/** What a {@link DeleteContentCommand} answers: the Deletion, or with `erase` both acts. */
export type DeleteContentResult<E extends boolean> = E extends true
  ? DeletionAndErasure
  : Sequenced<Deletion>;

/**
 * Deletes content by a visible act: a Deletion naming the targets, the reason and the
 * requester. Result: the stored event, or with `{ erase: true }` `{ deletion, erasure }`.
 */
export class DeleteContentCommand<E extends boolean = false> extends Command<
  DeleteContentResult<E>
> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields, validated by the core factory (possibly an untyped request body). */
    readonly input: DeletionInput,
    /** Whether to erase the targets too. */
    readonly options: DeleteContentOptions<E> = {},
  ) {
    super();
  }
}
