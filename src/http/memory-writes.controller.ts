/**
 * The writes of one memory: record a message, add a document, the auditable recall, record a
 * recall computed by the caller, delete content (and erase it too), and erase deleted content.
 * Each answers 201 with what was stored, recorded under the authenticated principal
 * (`recordedBy`, which no body may carry).
 */
import { Body, Controller, Inject, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  erasureIdOf,
  isMemoryError,
  MemoryError,
  type Deletion,
  type Sequenced,
} from '../core/index.js';
import type {
  DeletionAndErasure,
  ErasureCleanupStatus,
  ErasureOutcome,
  EventLookup,
} from '../memory/index.js';
import {
  AddDocumentCommand,
  DeleteContentCommand,
  EraseContentCommand,
  GetErasureCleanupQuery,
  GetEventQuery,
  RecallCommand,
  RecordMessageCommand,
  RecordRecallCommand,
} from '../nest.js';
import { requireRight, type Principal } from '../access/index.js';
import { CurrentPrincipal, RequiresRight } from './access.guard.js';
import { ApiErrorResponses, ApiJsonBody, ApiJsonResponse, ApiMemoryIdParam } from './openapi.js';
import { MemoryIdFromPath } from './memory-params.js';
import {
  DeletionBody,
  DocumentBody,
  ErasureBody,
  MessageBody,
  RecallBody,
  RecordRecallBody,
} from './request-schemas.js';
import { writeOrReturnRetried, type WriteRequest } from './retried-write.js';
import { bodyPipe } from './zod-validation.pipe.js';

/** POST routes under `/api/memories/:memoryId`. */
@ApiTags('write')
@Controller('api/memories/:memoryId')
export class MemoryWritesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  /** Runs a write; a retry of one already stored (same id, same fields sent) gets that event. */
  private write<T extends Sequenced>(
    memoryId: string,
    request: WriteRequest,
    command: () => Promise<T>,
  ): Promise<T> {
    return writeOrReturnRetried(request, command, (id) => this.stored(memoryId, id));
  }

  /** Whether the erasures' words are gone from disk (a retried erasure answers it again). */
  private cleanup(memoryId: string): Promise<ErasureCleanupStatus> {
    return this.queries.execute(new GetErasureCleanupQuery(memoryId));
  }

  /** The event stored under `id`, or undefined. */
  private async stored(memoryId: string, id: string): Promise<Sequenced | undefined> {
    try {
      const found: EventLookup = await this.queries.execute(new GetEventQuery(memoryId, id));
      return found.event;
    } catch (error) {
      if (isMemoryError(error, 'EVENT_NOT_FOUND')) return undefined;
      throw error;
    }
  }

  /** Records a message. */
  @Post('messages')
  @RequiresRight('write')
  @ApiMemoryIdParam()
  @ApiOperation({ summary: 'Record a message' })
  @ApiJsonBody(MessageBody, 'A message; id and timestamp are filled when left out.')
  @ApiJsonResponse(201, 'Message', 'The stored message, with its seq.')
  @ApiErrorResponses(400, 409, 413, 415)
  recordMessage(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(MessageBody, 'message body')) body: z.output<typeof MessageBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    const input = { ...body, recordedBy: principal.recordedBy };
    return this.write(memoryId, { kind: 'message', body: input }, () =>
      this.commands.execute(new RecordMessageCommand(memoryId, input)),
    );
  }

  /** Adds a document's extracted plain text. */
  @Post('documents')
  @RequiresRight('write')
  @ApiMemoryIdParam()
  @ApiOperation({ summary: 'Add a document (its extracted plain text)' })
  @ApiJsonBody(DocumentBody, 'A document; mediaType defaults to text/plain.')
  @ApiJsonResponse(201, 'Document', 'The stored document, with its seq.')
  @ApiErrorResponses(400, 409, 413, 415)
  addDocument(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(DocumentBody, 'document body')) body: z.output<typeof DocumentBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    const input = { ...body, recordedBy: principal.recordedBy };
    return this.write(memoryId, { kind: 'document', body: input }, () =>
      this.commands.execute(new AddDocumentCommand(memoryId, input)),
    );
  }

  /**
   * The auditable read: search the visible content, append the Recall naming what entered the
   * context, and only then return the items.
   */
  @Post('recall')
  @RequiresRight('recall')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Recall (the auditable read)',
    description:
      'Retrieves the best matches among visible content (BM25, vectors or both fused, as ' +
      '`mode` says) and writes a Recall event naming them, and how they were retrieved, before ' +
      'returning them. Answers `{ recall, items, vectors? }`. An embedding provider that is ' +
      'down answers 503 EMBEDDER_UNAVAILABLE (retry later), unless the server falls back to lexical.',
  })
  @ApiJsonBody(
    RecallBody,
    'The query, at most how many items (1-100, default 5), the mode (lexical, semantic, hybrid; ' +
      'default hybrid when an embedder is configured), and who asks.',
  )
  @ApiJsonResponse(
    201,
    'RecallResult',
    '`{ recall, items, vectors? }`: the stored Recall (its `retrieval` says how), the items it ' +
      'returned, and how far the vectors lagged or why lexical ran.',
  )
  @ApiErrorResponses(400, 409, 413, 415, 504)
  recall(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(RecallBody, 'recall body')) body: z.output<typeof RecallBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.commands.execute(
      new RecallCommand(memoryId, { ...body, recordedBy: principal.recordedBy }),
    );
  }

  /** Records a recall the caller computed with its own retrieval. */
  @Post('recalls')
  @RequiresRight('write')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Record a recall computed by the caller',
    description: 'Refused (409) when an id is unknown, not a message or document, or deleted.',
  })
  @ApiJsonBody(RecordRecallBody, 'The query and the ids that entered the context.')
  @ApiJsonResponse(201, 'Recall', 'The stored Recall, with its seq.')
  @ApiErrorResponses(400, 409, 413, 415)
  recordRecall(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(RecordRecallBody, 'recall body')) body: z.output<typeof RecordRecallBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    const input = { ...body, recordedBy: principal.recordedBy };
    return this.write(memoryId, { kind: 'recall', body: input }, () =>
      this.commands.execute(new RecordRecallCommand(memoryId, input)),
    );
  }

  /** Deletes content by a visible act; with `erase: true`, erases it too in the same append. */
  @Post('deletions')
  @RequiresRight('delete')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Delete content (a Deletion event: who, why, which items), optionally erase it too',
    description:
      'Targets must be visible messages or documents of this memory (409 otherwise). The targets ' +
      'stay in the log, retrievable by id, but never again visible, searchable or recallable. ' +
      'With `"erase": true` an Erasure of the same targets, reason and requester is appended ' +
      'with the Deletion, atomically (which needs the `erase` right too), and the answer is `{ deletion, erasure, cleanup }` (409 ' +
      '`ERASURE_UNAVAILABLE` on a store without keys, and nothing is written); `cleanup` says ' +
      'whether the words are gone from disk already or the scrub of old page images is pending ' +
      '(a reader holds an older snapshot; it is retried until it completes).',
  })
  @ApiJsonBody(DeletionBody, 'The ids to delete, the reason, who asked, and whether to erase too.')
  @ApiJsonResponse(
    201,
    'DeletionResult',
    'The stored Deletion, with its seq; with `erase: true`, `{ deletion, erasure, cleanup }`.',
  )
  @ApiErrorResponses(400, 409, 413, 415)
  async deleteContent(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(DeletionBody, 'deletion body')) body: z.output<typeof DeletionBody>,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Sequenced<Deletion> | DeletionAndErasure> {
    const { erase, ...fields } = body;
    const input = { ...fields, recordedBy: principal.recordedBy };
    const request: WriteRequest = { kind: 'deletion', body: input };
    if (erase !== true) {
      return this.write(memoryId, request, () =>
        this.commands.execute(new DeleteContentCommand(memoryId, input)),
      );
    }
    requireRight(principal, memoryId, 'erase');
    // A retry makes the same pair (the Erasure's id is derived from the Deletion's): with the
    // client's timestamp it is an idempotent append; without, the Deletion is recognized as for
    // any write, and the Erasure stored beside it answered with it.
    return writeOrReturnRetried(
      request,
      () => this.commands.execute(new DeleteContentCommand(memoryId, input, { erase: true })),
      (id) => this.stored(memoryId, id),
      async (deletion) => {
        const erasure = await this.stored(memoryId, erasureIdOf(deletion.id));
        if (erasure?.kind !== 'erasure') {
          throw new MemoryError(
            'ID_CONFLICT',
            `Deletion ${deletion.id} is on record without its erasure; retry without "erase": true, then erase its targets.`,
            { details: { id: deletion.id } },
          );
        }
        const cleanup = await this.cleanup(memoryId);
        return { deletion: deletion as Sequenced<Deletion>, erasure, cleanup };
      },
    );
  }

  /** Erases content already deleted: the words destroyed, the act on record. */
  @Post('erasures')
  @RequiresRight('erase')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Erase deleted content (an Erasure event: who, why, which items)',
    description:
      'Targets must be deleted messages or documents of this memory, not yet erased. Their ' +
      'per-item keys are destroyed: every read shows them as erased (content null, ' +
      '`erased: true`) while the ids, seqs, times, the Deletion and the Erasure stay on record. ' +
      'The answer is `{ erasure, cleanup }`: `cleanup.state` is `done` once no file holds a page ' +
      'image from before the erasure, `pending` (with the reason) while a reader holds an older ' +
      'snapshot; the scrub is retried until it completes, across restarts. ' +
      '409: `ERASURE_TARGET_NOT_DELETED` (still visible), `ERASURE_TARGET_NOT_CONTENT`, ' +
      '`ERASURE_TARGET_UNKNOWN`, `ALREADY_ERASED`, `ERASURE_UNAVAILABLE` (a store without keys).',
  })
  @ApiJsonBody(ErasureBody, 'The deleted ids to erase, the reason and who asked.')
  @ApiJsonResponse(
    201,
    'ErasureResult',
    'The stored Erasure, with its seq, and whether its words are gone from disk yet.',
  )
  @ApiErrorResponses(400, 409, 413, 415)
  eraseContent(
    @MemoryIdFromPath() memoryId: string,
    @Body(bodyPipe(ErasureBody, 'erasure body')) body: z.output<typeof ErasureBody>,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ErasureOutcome> {
    const input = { ...body, recordedBy: principal.recordedBy };
    return writeOrReturnRetried(
      { kind: 'erasure', body: input },
      () => this.commands.execute(new EraseContentCommand(memoryId, input)),
      (id) => this.stored(memoryId, id),
      async (erasure) => ({
        erasure: erasure as ErasureOutcome['erasure'],
        cleanup: await this.cleanup(memoryId),
      }),
    );
  }
}
