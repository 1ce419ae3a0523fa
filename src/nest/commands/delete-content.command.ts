import { Command } from '@nestjs/cqrs';
import type { Deletion, DeletionInput, Sequenced } from '../../core/index.js';

/** Deletes content by a visible act: a Deletion naming the targets, the reason and the requester. Result: the stored event. */
export class DeleteContentCommand extends Command<Sequenced<Deletion>> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields, validated by the core factory (possibly an untyped request body). */
    readonly input: DeletionInput,
  ) {
    super();
  }
}
