/**
 * The first middleware of the application: gives each request its ids (`X-Request-Id` echoed or
 * made), opens its HTTP server span as a child of the caller's `traceparent` (so the memory
 * operations the route runs nest under the caller's trace), names the span after the matched
 * route once known, and logs one access line per request (level `log`, URL redacted).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { memledgerTracer } from '../telemetry/index.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { InFlightRequests } from './in-flight-requests.js';
import { redactSecrets } from './redact.js';
import { traceIdOf, withRequestIds } from './request-context.js';

/** An Express middleware. */
export type Middleware = (request: HttpRequest, response: HttpResponse, next: () => void) => void;

/** A request id a client may choose: short, printable, no spaces. */
const CLIENT_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** Request ids, the server span, the in-flight count and the access log line. */
export function requestTelemetry(log: Logger, inFlight: InFlightRequests): Middleware {
  return (request, response, next) => {
    const done = inFlight.start();
    const sent = request.headers['x-request-id'];
    const requestId =
      typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    response.setHeader('X-Request-Id', requestId);
    const parent = propagation.extract(context.active(), request.headers);
    const method = request.method ?? 'GET';
    const span = memledgerTracer().startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': redactSecrets(request.path),
          'url.scheme': 'http',
        },
      },
      parent,
    );
    const ids = { requestId, callerTraceId: traceIdOf(request.headers.traceparent) };
    const started = performance.now();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      done();
      const route = (request as { route?: { path?: unknown } }).route?.path;
      const status = response.statusCode;
      if (typeof route === 'string') {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      const traceId = span.spanContext().traceId;
      span.end();
      // Explicit ids: 'finish' may run outside the request's async context.
      log.log({
        msg: 'request',
        requestId,
        ...(span.isRecording()
          ? { traceId }
          : ids.callerTraceId
            ? { traceId: ids.callerTraceId }
            : {}),
        method,
        url: redactSecrets(request.originalUrl),
        status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(response.writableFinished ? {} : { aborted: true }),
      });
    };
    response.once('finish', end);
    response.once('close', end);
    withRequestIds(ids, () => context.with(trace.setSpan(parent, span), next));
  };
}
