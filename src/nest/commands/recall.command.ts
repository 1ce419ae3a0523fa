import { Command } from '@nestjs/cqrs';
import type { RecallRequest, RecallResult } from '../../memory/index.js';

/**
 * A {@link RecallRequest} whose optional fields may also be explicitly `undefined`, as a parsed
 * request body has them.
 */
export type RecallCommandRequest = {
  readonly [K in keyof Omit<RecallRequest, 'query'>]?: RecallRequest[K] | undefined;
} & { readonly query: string };

/**
 * The auditable read: retrieves among the content visible now, puts a Recall naming the items on
 * record (linearizable with deletions), and only then returns the items.
 */
export class RecallCommand extends Command<RecallResult> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /**
     * The query, an optional limit (1 to 100) and mode (lexical, semantic, hybrid), and the
     * session, source and actor on record.
     */
    readonly request: RecallCommandRequest,
  ) {
    super();
  }
}
