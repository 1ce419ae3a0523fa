/**
 * Optional bearer-token authentication: when a token is configured, every `/api` route needs
 * `Authorization: Bearer <token>`. The event stream alone also accepts `?access_token=`, because
 * a browser's EventSource cannot send headers. Tokens are compared in constant time.
 */
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpRequest as Request } from './http-types.js';
import { HttpApiError } from './http-error.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';

/** The route whose token may come in the query string (EventSource sends no headers). */
const QUERY_TOKEN_ROUTE = /^\/api\/memories\/[^/]+\/events\/stream$/;

/**
 * Equal-length digests make `timingSafeEqual` applicable to tokens of any length and keep the
 * comparison from revealing the expected token's length.
 */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** True when `given` equals `expected`, compared in constant time. */
export function tokensMatch(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token a request presents, if any. */
export function presentedToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match) return match[1];
  const query = request.query.access_token;
  if (typeof query === 'string' && QUERY_TOKEN_ROUTE.test(request.path)) return query;
  return undefined;
}

/** Answers 401 (`UNAUTHORIZED`) on `/api` routes without the configured token. */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(@Inject(HTTP_CONFIG) private readonly config: ResolvedHttpConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.apiToken;
    if (expected === undefined) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const given = presentedToken(request);
    if (given !== undefined && tokensMatch(given, expected)) return true;
    throw new HttpApiError(
      'UNAUTHORIZED',
      given === undefined
        ? 'This server requires a token: send Authorization: Bearer <token>.'
        : 'The token is not valid for this server.',
    );
  }
}
