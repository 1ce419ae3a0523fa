/**
 * Access on every `/api` route and on `/mcp`: the guard authenticates the request (an access
 * key, a JWT or the API token as `Authorization: Bearer`; on the event stream also
 * `?access_token=`, since a browser's EventSource cannot send headers), keeps the principal on
 * the request, and checks the right the route declares on its `:memoryId` — before any pipe,
 * handler or store read, so a refusal never depends on whether the memory exists and never
 * writes. Health and metrics are public.
 */
import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MemoryError } from '../core/index.js';
import {
  isAdmin,
  principalName,
  requireRight,
  type Principal,
  type Right,
} from '../access/index.js';
import { HttpAccess } from './http-access.js';
import type { HttpRequest } from './http-types.js';

/** A request the guard has authenticated. */
export interface AuthenticatedRequest extends HttpRequest {
  principal?: Principal;
  readonly params: Readonly<Record<string, string | undefined>>;
}

const RIGHT = Symbol('memledger:right');
const PUBLIC = Symbol('memledger:public');

/**
 * The right a route needs on its `:memoryId`; `admin` on a route without one needs `admin` on
 * some memory (the handler checks what exactly).
 */
export const RequiresRight = (right: Right) => SetMetadata(RIGHT, right);

/** A route anyone may call (health, metrics). */
export const PublicRoute = () => SetMetadata(PUBLIC, true);

/** The principal the guard authenticated. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    principalOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);

/** The principal of a request the guard let through. */
export function principalOf(request: AuthenticatedRequest): Principal {
  if (request.principal === undefined) throw new Error('The request was not authenticated.');
  return request.principal;
}

/** The route whose credential may come in the query string (EventSource sends no headers). */
const QUERY_TOKEN_ROUTE = /^\/api\/memories\/[^/]+\/events\/stream$/;

/** The credential a request presents, if any. */
export function presentedCredential(request: HttpRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match) return match[1];
  const query = request.query.access_token;
  if (typeof query === 'string' && QUERY_TOKEN_ROUTE.test(request.path)) return query;
  return undefined;
}

/** Authenticates, then authorizes the route's right (401 `UNAUTHORIZED`, 403 `FORBIDDEN`). */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    @Inject(HttpAccess) private readonly access: HttpAccess,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.access.authenticator.authenticate(presentedCredential(request));
    request.principal = principal;
    const right = this.reflector.getAllAndOverride<Right | undefined>(RIGHT, targets);
    if (right === undefined) return true;
    const memoryId = request.params.memoryId;
    if (memoryId !== undefined) requireRight(principal, memoryId, right);
    else if (right === 'admin' && !isAdmin(principal)) {
      throw new MemoryError(
        'FORBIDDEN',
        `${principalName(principal)} lacks the right "admin" on every memory.`,
        { details: { right } },
      );
    }
    return true;
  }
}
