/**
 * The reads of one memory and the list of memories. None of them writes anything: the
 * inspection search included (the auditable read is `POST recall`). Each needs `read` on the
 * memory; the list names only the memories the caller may read.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  GetEventQuery,
  GetItemHistoryQuery,
  GetMemoryStateQuery,
  GetRecallStatsQuery,
  ListMemoriesQuery,
  ReadEventsQuery,
  SearchMemoryQuery,
} from '../nest.js';
import { relativeScores } from '../read-models/index.js';
import { authorize, type Principal } from '../access/index.js';
import { MEMLEDGER } from '../nest.js';
import type { Memledger } from '../memory/index.js';
import { CurrentPrincipal, RequiresRight } from './access.guard.js';
import { defined } from './defined.js';
import { EventIdFromPath, MemoryIdFromPath } from './memory-params.js';
import {
  ApiErrorResponses,
  ApiEventIdParam,
  ApiJsonResponse,
  ApiMemoryIdParam,
  ApiQueryFrom,
} from './openapi.js';
import { AuditQuery, EventsQuery, SearchQuery, StateQuery } from './request-schemas.js';
import { queryPipe } from './zod-validation.pipe.js';

/** GET routes under `/api/memories`. */
@ApiTags('read')
@Controller('api/memories')
export class MemoryReadsController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
  ) {}

  /** The ids of the memories that hold events and that the caller may read. */
  @Get()
  @ApiOperation({
    summary: 'List the memories that hold events (those the caller may read)',
    description: 'A memory the caller may not read is left out, as if it did not exist.',
  })
  @ApiJsonResponse(200, 'MemoryIds', 'An array of memory ids.')
  @ApiErrorResponses()
  async list(@CurrentPrincipal() principal: Principal): Promise<string[]> {
    const ids: string[] = await this.queries.execute(new ListMemoriesQuery());
    return ids.filter((id) => authorize(principal, id, 'read'));
  }

  /**
   * The recall audit: what a principal recalled from this memory between two times, and what
   * each recall put in the context.
   */
  @Get(':memoryId/recalls')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Audit the recalls: by principal, between two times, with what they contained',
    description:
      'Recalls in seq order, each with the items it returned as the log holds them now (their ' +
      'words never change; an erased item shows the erasure marker). A page stops at `limit` ' +
      'recalls, about 4 MiB of JSON, or 10,000 events scanned: `next` is the `fromSeq` of the ' +
      'next page (null once the scan reached the head of the log).',
  })
  @ApiQueryFrom(AuditQuery, {
    principal: 'Only recalls recorded by this authenticated principal (`recordedBy.principal`).',
    from: 'Only recalls at or after this time (ISO-8601 with an offset).',
    to: 'Only recalls before this time.',
    fromSeq: "Where the scan starts (a page's `next`; default 0).",
    limit: 'At most this many recalls, 1 to 1000 (default 100).',
  })
  @ApiJsonResponse(200, 'RecallAuditPage', '`{ recalls: [{ recall, items }], next }`.')
  @ApiErrorResponses(400)
  async recallAudit(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(AuditQuery)) query: z.output<typeof AuditQuery>,
  ) {
    const memory = await this.memledger.memory(memoryId);
    return memory.recallAudit(defined(query));
  }

  /** The state now, or as it stood right after `upToSeq`: visible lists (paged), deletions, recall stats. */
  @Get(':memoryId/state')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'The state now or as it stood right after a seq',
    description:
      'Visible messages and documents (paged by offset/limit), what was deleted by then and by ' +
      'which Deletion, and recall statistics. `upToSeq=-1` is the state before the first event. ' +
      'The lists stop early once the page holds about 4 MiB of JSON; `page.next` gives the offset ' +
      'at which each list continues (null when it is complete).',
  })
  @ApiQueryFrom(StateQuery, {
    upToSeq: 'The seq to stand at (default: now).',
    offset: 'Items to skip in each visible list (default 0).',
    limit: 'Items per visible list, 1 to 1000 (default 100).',
  })
  @ApiJsonResponse(200, 'StatePage', 'A page of the state.')
  @ApiErrorResponses(400)
  state(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(StateQuery)) query: z.output<typeof StateQuery>,
  ) {
    return this.queries.execute(new GetMemoryStateQuery(memoryId, defined(query)));
  }

  /** Inspection search: writes nothing, so it leaves no Recall on record. */
  @Get(':memoryId/search')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Inspection search (writes nothing)',
    description:
      'Search over visible content, now or as of a seq: full-text (BM25), by meaning (vectors) ' +
      'or both fused. Unlike POST recall it writes no Recall event: use it to inspect, not to ' +
      'feed a model.',
  })
  @ApiQueryFrom(SearchQuery, {
    q: 'The text to search for.',
    upToSeq: 'Search the content visible right after this seq (default: now).',
    limit: 'At most this many hits, 1 to 1000 (default 10).',
    mode:
      '`lexical` (BM25), `semantic` (vectors, by cosine similarity) or `hybrid` (both, ' +
      'RRF-fused). Default: hybrid when an embedder is configured.',
  })
  @ApiJsonResponse(
    200,
    'SearchResults',
    'Hits, best first: `{ id, kind, seq, score, item }`; `score` is the relevance (BM25, cosine similarity or the fused score, as the mode says) relative to the best hit (1).',
  )
  @ApiErrorResponses(400)
  async search(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(SearchQuery)) query: z.output<typeof SearchQuery>,
  ) {
    const { q, upToSeq, limit, mode } = query;
    return relativeScores(
      await this.queries.execute(
        new SearchMemoryQuery(memoryId, q, defined({ asOfSeq: upToSeq, limit, mode })),
      ),
    );
  }

  /** How often each item entered a context, and when it last did. */
  @Get(':memoryId/recall-stats')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({ summary: 'Recall statistics per item' })
  @ApiJsonResponse(200, 'RecallStats', 'Item id -> `{ count, lastRecalledAt, lastRecalledSeq }`.')
  @ApiErrorResponses(400)
  recallStats(@MemoryIdFromPath() memoryId: string) {
    return this.queries.execute(new GetRecallStatsQuery(memoryId));
  }

  /** A page of the log. */
  @Get(':memoryId/events')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'A page of the log, in seq order',
    description:
      'At most `limit` events, and fewer once they add up to about 4 MiB of JSON (at least one ' +
      'event is returned): the next page starts at the last seq + 1.',
  })
  @ApiQueryFrom(EventsQuery, {
    fromSeq: 'The first seq to include (default 0).',
    limit: 'At most this many events, 1 to 1000 (default 100).',
  })
  @ApiJsonResponse(200, 'EventPage', 'An array of sequenced events.')
  @ApiErrorResponses(400)
  events(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(EventsQuery)) query: z.output<typeof EventsQuery>,
  ) {
    return this.queries.execute(new ReadEventsQuery(memoryId, defined(query)));
  }

  /** One event by id; deleted content too, marked so. */
  @Get(':memoryId/events/:id')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiEventIdParam()
  @ApiOperation({ summary: 'One event by id (deleted content included, marked so)' })
  @ApiJsonResponse(200, 'EventLookup', '`{ event, deleted, deletedBy }`.')
  @ApiErrorResponses(400, 404)
  event(@MemoryIdFromPath() memoryId: string, @EventIdFromPath() id: string) {
    return this.queries.execute(new GetEventQuery(memoryId, id));
  }

  /** When an item was written, every recall that used it, and the Deletion that removed it. */
  @Get(':memoryId/items/:id/history')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiEventIdParam()
  @ApiOperation({ summary: 'The full history of one item' })
  @ApiJsonResponse(200, 'ItemHistory', '`{ event, recalls, deletedBy }`.')
  @ApiErrorResponses(400, 404)
  history(@MemoryIdFromPath() memoryId: string, @EventIdFromPath() id: string) {
    return this.queries.execute(new GetItemHistoryQuery(memoryId, id));
  }
}
