/**
 * The verifiable log's routes, in the shapes docs/leaf-v1.md fixes for outside verifiers: the
 * log's verifier key and each memory's checkpoint as text, its inclusion and consistency proofs
 * as JSON. None of them writes an event (a new checkpoint is kept beside the log). A memory's
 * checkpoint and proofs need its read right (they carry its events' leaves and its size); the
 * verifier key is the server's public key, public like the health checks: it names no memory.
 */
import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import {
  GetCheckpointQuery,
  GetLogKeyQuery,
  ProveConsistencyQuery,
  ProveInclusionQuery,
} from '../nest.js';
import { PublicRoute, RequiresRight } from './access.guard.js';
import type { HttpResponse } from './http-types.js';
import { MemoryIdFromPath } from './memory-params.js';
import {
  ApiErrorResponses,
  ApiJsonResponse,
  ApiMemoryIdParam,
  ApiQueryFrom,
  ApiTextResponse,
} from './openapi.js';
import { CheckpointQuery, ConsistencyQuery, InclusionQuery } from './request-schemas.js';
import { queryPipe } from './zod-validation.pipe.js';

const TEXT = 'text/plain; charset=utf-8';

/** GET routes of the verifiable log. */
@ApiTags('verifiable log')
@Controller('api')
export class VerifiableLogController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  /** The log's verifier key line. */
  @Get('log-key')
  @PublicRoute()
  @ApiOperation({
    summary: "The log's verifier key",
    description:
      'One line, `<name>+<key id>+<base64 key>` (C2SP signed-note verifier key): the key every ' +
      "checkpoint's signature verifies under. Take it from the operator out of band to trust it; " +
      'this route is a convenience. 404 `LOG_KEY_NOT_CONFIGURED` when the server signs nothing.',
  })
  @ApiTextResponse('text/plain', 'The verifier key line and a newline.')
  @ApiErrorResponses(404)
  async logKey(@Res({ passthrough: true }) response: HttpResponse): Promise<string> {
    const key = await this.queries.execute(new GetLogKeyQuery());
    // Set once the answer is known: an error is answered as JSON.
    response.setHeader('Content-Type', TEXT);
    return `${key}\n`;
  }

  /** The memory's checkpoint note. */
  @Get('memories/:memoryId/checkpoint')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: "The memory's checkpoint (signed note)",
    description:
      'The C2SP tlog-checkpoint `<log name>/<memory id>\\n<size>\\n<base64 root>\\n` of the head, or ' +
      "of `size` (at most the head), in a C2SP signed-note with the log's Ed25519 signature and " +
      "the witnesses' cosignatures. A server without a key (header `Memledger-Signed: false`) " +
      'answers the checkpoint text alone. Never one that contradicts a checkpoint signed before.',
  })
  @ApiQueryFrom(CheckpointQuery, { size: 'The tree size (default: the head).' })
  @ApiTextResponse('text/plain', 'The signed note (or the unsigned checkpoint text).')
  @ApiErrorResponses(400, 404, 409)
  async checkpoint(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(CheckpointQuery)) query: z.output<typeof CheckpointQuery>,
    @Res({ passthrough: true }) response: HttpResponse,
  ): Promise<string> {
    const checkpoint = await this.queries.execute(new GetCheckpointQuery(memoryId, query.size));
    response.setHeader('Content-Type', TEXT);
    response.setHeader('Memledger-Signed', String(checkpoint.signed));
    return checkpoint.note;
  }

  /** The inclusion proof of one event. */
  @Get('memories/:memoryId/proofs/inclusion')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'The inclusion proof of the event at a seq',
    description:
      'The event at `seq` is leaf `seq` of the tree of `size` leaves: its memledger/leaf/v1 bytes, ' +
      'leaf hash and RFC 9162 inclusion path (base64). Check it against a checkpoint of that size ' +
      'with memledger/verify `verifyLeafInclusion`: size and root from the checkpoint, the leaf hash ' +
      'recomputed from the leaf.',
  })
  @ApiQueryFrom(InclusionQuery, {
    seq: 'The seq of the event.',
    size: 'The tree size, above seq and at most the head (default: the head).',
  })
  @ApiJsonResponse(200, 'InclusionProof', '`{ seq, treeSize, leaf, leafHash, path }`.')
  @ApiErrorResponses(400, 404)
  inclusion(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(InclusionQuery)) query: z.output<typeof InclusionQuery>,
  ) {
    return this.queries.execute(new ProveInclusionQuery(memoryId, query.seq, query.size));
  }

  /** The consistency proof between two sizes. */
  @Get('memories/:memoryId/proofs/consistency')
  @RequiresRight('read')
  @ApiMemoryIdParam()
  @ApiOperation({
    summary: 'The consistency proof between two tree sizes',
    description:
      'The tree of `from` leaves is a prefix of the tree of `to` leaves: the RFC 9162 consistency ' +
      'path (base64). Check it with memledger/verify `verifyCheckpointConsistency` against the two ' +
      'checkpoints: a log that only grew passes, a rewritten history cannot.',
  })
  @ApiQueryFrom(ConsistencyQuery, {
    from: 'The smaller size (a checkpoint saved earlier).',
    to: 'The larger size, at most the head (default: the head).',
  })
  @ApiJsonResponse(200, 'ConsistencyProof', '`{ from, to, path }`.')
  @ApiErrorResponses(400, 404)
  consistency(
    @MemoryIdFromPath() memoryId: string,
    @Query(queryPipe(ConsistencyQuery)) query: z.output<typeof ConsistencyQuery>,
  ) {
    return this.queries.execute(new ProveConsistencyQuery(memoryId, query.from, query.to));
  }
}
