import { Command } from '@nestjs/cqrs';
import type { Document, DocumentInput, Sequenced } from '../../core/index.js';

/** Adds a document (its extracted plain text) to a memory. Result: the stored event. */
export class AddDocumentCommand extends Command<Sequenced<Document>> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields, validated by the core factory (possibly an untyped request body). */
    readonly input: DocumentInput,
  ) {
    super();
  }
}
