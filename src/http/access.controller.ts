/**
 * The access routes: who the caller is (`GET /api/access/me`, for the page to show only what a
 * key may do), and key management for principals with `admin`: list, create and revoke keys
 * within their own grant (a key never reaches past its grant, so neither can a key it creates).
 */
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { MemoryError } from '../core/index.js';
import {
  mayGrant,
  principalName,
  rightsOn,
  type AccessKey,
  type Principal,
} from '../access/index.js';
import { CurrentPrincipal, RequiresRight } from './access.guard.js';
import { KeyBody, MeQuery } from './access.schemas.js';
import { HttpAccess } from './http-access.js';
import { ApiErrorResponses, ApiJsonBody, ApiJsonResponse, ApiQueryFrom } from './openapi.js';
import { bodyPipe, queryPipe } from './zod-validation.pipe.js';

/** `/api/access`. */
@ApiTags('access')
@Controller('api/access')
export class AccessController {
  constructor(@Inject(HttpAccess) private readonly access: HttpAccess) {}

  /** The caller as authenticated, its grants, and its rights on `?memory=` when asked. */
  @Get('me')
  @ApiOperation({ summary: 'Who the caller is, and what it may do' })
  @ApiQueryFrom(MeQuery, { memory: 'A memory whose rights to list.' })
  @ApiJsonResponse(200, 'AccessMe', 'The principal, its grants, and its rights on the memory.')
  @ApiErrorResponses(400)
  whoAmI(
    @CurrentPrincipal() principal: Principal,
    @Query(queryPipe(MeQuery)) query: z.output<typeof MeQuery>,
  ) {
    return {
      authenticationRequired: this.access.authenticator.required,
      recordedBy: principal.recordedBy,
      grants: principal.grants,
      ...(query.memory === undefined ? {} : { rights: rightsOn(principal, query.memory) }),
    };
  }

  /** The keys whose whole grant lies within the caller's `admin` grant. */
  @Get('keys')
  @RequiresRight('admin')
  @ApiOperation({ summary: 'List access keys (those within your admin grant)' })
  @ApiJsonResponse(200, 'AccessKeys', 'Every key the caller may manage, revoked ones included.')
  @ApiErrorResponses()
  listKeys(@CurrentPrincipal() principal: Principal): AccessKey[] {
    return this.grants.keys().filter((key) => mayGrant(principal, key));
  }

  /** Grants a new key within the caller's `admin` grant; its secret is answered once. */
  @Post('keys')
  @RequiresRight('admin')
  @ApiOperation({
    summary: 'Create an access key',
    description:
      'The answer holds the secret (`mlk_...`) once: only its SHA-256 digest is stored. Every ' +
      'memory pattern and right must lie within an `admin` grant of the caller (403 otherwise).',
  })
  @ApiJsonBody(KeyBody, 'The principal, its memory patterns and its rights.')
  @ApiJsonResponse(201, 'CreatedKey', 'The key, with its secret.')
  @ApiErrorResponses(400)
  async createKey(
    @CurrentPrincipal() principal: Principal,
    @Body(bodyPipe(KeyBody, 'access key')) body: z.output<typeof KeyBody>,
  ) {
    if (!mayGrant(principal, body)) {
      throw new MemoryError(
        'FORBIDDEN',
        `${principalName(principal)} lacks "admin" with every right asked for on every memory pattern asked for.`,
        { details: { right: 'admin' } },
      );
    }
    const { key, secret } = await this.grants.create(body, principal.recordedBy);
    return { ...key, secret };
  }

  /** Revokes a key within the caller's `admin` grant: its open streams end within a second. */
  @Post('keys/:keyId/revoke')
  @HttpCode(200)
  @RequiresRight('admin')
  @ApiOperation({
    summary: 'Revoke an access key',
    description:
      'Every instance refuses it within a second and ends its open event streams. A key outside ' +
      "the caller's admin grant answers 404 `ACCESS_KEY_UNKNOWN`, as one never granted does.",
  })
  @ApiParam({ name: 'keyId', description: 'The key id.', schema: { type: 'string' } })
  @ApiJsonResponse(200, 'AccessKey', 'The key, revoked.')
  @ApiErrorResponses(404)
  async revokeKey(@CurrentPrincipal() principal: Principal, @Param('keyId') keyId: string) {
    const key = this.grants.keys().find((k) => k.id === keyId);
    if (key === undefined || !mayGrant(principal, key)) {
      throw new MemoryError('ACCESS_KEY_UNKNOWN', `Access key ${keyId} is unknown here.`, {
        details: { keyId },
      });
    }
    return this.grants.revoke(keyId, principal.recordedBy);
  }

  private get grants() {
    return this.access.authenticator.grants;
  }
}
