/**
 * Streams of one memory: the live event stream (Server-Sent Events) and the JSON Lines export.
 * Both check the store with a first read before answering 200, so an unavailable store or a
 * bad memory id still gets a proper error status; a failure after that ends the stream.
 */
import { Controller, Get, Headers, Inject, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { HttpResponse as Response } from './http-types.js';
import type { z } from 'zod';
import { MemoryError, type Sequenced } from '../core/index.js';
import { MemoryEvents, ReadEventsQuery } from '../nest.js';
import { exportLine } from '../store/codec.js';
import type { Principal } from '../access/index.js';
import { CurrentPrincipal, RequiresRight } from './access.guard.js';
import { HttpAccess } from './http-access.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';
import { publicError } from './memory-error.filter.js';
import { MemoryIdFromPath } from './memory-params.js';
import { ApiErrorResponses, ApiMemoryIdParam, ApiQueryFrom, ApiTextResponse } from './openapi.js';
import { MAX_EVENTS_PAGE, StreamQuery } from './request-schemas.js';
import { SseClients } from './sse-clients.js';
import { drained, runEventStream, STREAM_PAGE } from './sse-session.js';
import { queryPipe } from './zod-validation.pipe.js';

/** The seq after the `Last-Event-ID` a reconnecting EventSource sends, if any. */
function resumeSeq(lastEventId: string | undefined): number | undefined {
  if (lastEventId === undefined || lastEventId.trim() === '') return undefined;
  if (!/^\d+$/.test(lastEventId.trim())) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid Last-Event-ID ${JSON.stringify(lastEventId)}: must be a seq.`,
      {
        issues: [{ path: 'Last-Event-ID', message: 'must be a seq (an integer of 0 or more)' }],
      },
    );
  }
  return Number(lastEventId) + 1;
}

/** The event stream and the export. */
@ApiTags('stream')
@Controller('api/memories/:memoryId')
export class MemoryStreamController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(MemoryEvents) private readonly events: MemoryEvents,
    @Inject(HTTP_CONFIG) private readonly config: ResolvedHttpConfig,
    @Inject(SseClients) private readonly clients: SseClients,
    @Inject(HttpAccess) private readonly access: HttpAccess,
  ) {}

  /**
   * Ends `response` once its principal's key is revoked or its credential expires, with a
   * `failure` event saying so (the reconnect then needs a valid key).
   */
  private endWhenInvalid(response: Response, principal: Principal): void {
    const end = (message: string) => {
      if (response.writableEnded || response.destroyed) return;
      response.end(
        `event: failure\ndata: ${JSON.stringify({ code: 'UNAUTHORIZED', message })}\n\n`,
      );
      // A client that does not take the last bytes loses its socket all the same.
      setTimeout(() => response.destroy(), 500).unref();
    };
    const stops: (() => void)[] = [];
    if (principal.keyId !== undefined) {
      stops.push(
        this.access.authenticator.onRevoked(principal.keyId, () =>
          end('The access key was revoked.'),
        ),
      );
    }
    if (principal.expiresAt !== undefined) {
      const timer = setTimeout(
        () => end('The credential expired.'),
        // setTimeout fires at once past 2^31 - 1 ms (about 24 days).
        Math.min(Math.max(0, principal.expiresAt - Date.now()), 2_147_483_647),
      );
      stops.push(() => clearTimeout(timer));
    }
    response.once('close', () => stops.forEach((stop) => stop()));
  }

  /**
   * Server-Sent Events: every event from `fromSeq` (replayed from the log), then each new one as
   * it is appended. Each message's `id:` is the event's seq, so a reconnecting EventSource
   * resumes right after the last event it got (`Last-Event-ID` wins over `fromSeq`).
   */
  @Get('events/stream')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Live event stream (Server-Sent Events)',
    description:
      'Replays the log from `fromSeq`, then sends each new event as it is appended. Each SSE ' +
      'message has `id:` = seq and `data:` = the event as JSON. A reconnecting EventSource ' +
      'resumes after `Last-Event-ID`. EventSource cannot send headers, so this route (only) also ' +
      'accepts the key as `?access_token=`. The stream ends (an `event: failure` with ' +
      '`UNAUTHORIZED`) within a second of its key being revoked, and when its JWT expires.',
  })
  @ApiQueryFrom(StreamQuery, {
    fromSeq: 'The first seq to send (default 0).',
    access_token: 'The access key (or JWT, or token), for clients that cannot send headers.',
  })
  @ApiTextResponse(
    'text/event-stream',
    'Server-Sent Events: `id:` the seq, `data:` the event as JSON (an `Event`).',
  )
  @ApiErrorResponses(400)
  async stream(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(StreamQuery)) query: z.output<typeof StreamQuery>,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() response: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    const fromSeq = resumeSeq(lastEventId) ?? query.fromSeq ?? 0;
    await this.queries.execute(new ReadEventsQuery(memoryId, { fromSeq, limit: 1 }));
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    response.write('retry: 2000\n\n');
    // Counted for the metric, and ended with a reconnect hint if the server shuts down.
    this.clients.add(response);
    this.endWhenInvalid(response, principal);
    await runEventStream(
      response,
      {
        page: (from) =>
          this.queries.execute(
            new ReadEventsQuery(memoryId, { fromSeq: from, limit: STREAM_PAGE }),
          ),
        live: (from) => this.events.changes$(memoryId, { fromSeq: from }),
        // The stream is open, so a failure travels as a named event the page can show.
        failure: (error) => `event: failure\ndata: ${JSON.stringify(publicError(error).body)}\n\n`,
      },
      fromSeq,
      { maxBufferedBytes: this.config.sseBufferBytes, heartbeatMs: this.config.sseHeartbeatMs },
    );
  }

  /** The whole log as JSON Lines, streamed page by page. */
  @Get('export')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'Export the log as JSON Lines',
    description:
      'One event per line, in seq order, as the API returns events (with kind and seq), plus the ' +
      'schema `version` of its kind (what `memledger import` reads). ' +
      'Streamed: a failure midway ends the response early.',
  })
  @ApiTextResponse(
    'application/x-ndjson',
    'JSON Lines: one event (an `Event`, plus `version`: its schema version) per line, in seq order.',
  )
  @ApiErrorResponses(400)
  async export(@MemoryIdFromPath() memoryId: string, @Res() response: Response): Promise<void> {
    const page = (fromSeq: number) =>
      this.queries.execute(
        new ReadEventsQuery(memoryId, { fromSeq, limit: MAX_EVENTS_PAGE }),
      ) as Promise<readonly Sequenced[]>;
    let events = await page(0);
    response.status(200).set({
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${memoryId}.jsonl"`,
      'Cache-Control': 'no-store',
    });
    for (;;) {
      for (const event of events) {
        if (response.destroyed) return;
        if (!response.write(`${exportLine(event)}\n`)) await drained(response);
      }
      const last = events.at(-1);
      if (events.length < MAX_EVENTS_PAGE || last === undefined) break;
      events = await page(last.seq + 1);
    }
    response.end();
  }
}
