/**
 * Per-request correlation for logs: the request id (the client's `X-Request-Id`, else a new
 * UUID) and the trace id, held in an AsyncLocalStorage so any log line written while the request
 * runs carries them. The trace id is the active span's when tracing is on, else the caller's
 * `traceparent`, so logs join the caller's trace even with tracing off.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';

/** Ids of the request being served. */
export interface RequestIds {
  readonly requestId: string;
  /** From the caller's `traceparent`, when it sent a valid one. */
  readonly callerTraceId?: string | undefined;
}

const scope = new AsyncLocalStorage<RequestIds>();

/** Runs `work` with `ids` as the current request's. */
export function withRequestIds<T>(ids: RequestIds, work: () => T): T {
  return scope.run(ids, work);
}

/** `requestId`, `traceId` and `spanId` of the work running now, those that are known. */
export function correlationIds(): Record<string, string> {
  const ids = scope.getStore();
  const span = trace.getActiveSpan()?.spanContext();
  const traced = span && span.traceId !== '00000000000000000000000000000000';
  return {
    ...(ids ? { requestId: ids.requestId } : {}),
    ...(traced
      ? { traceId: span.traceId, spanId: span.spanId }
      : ids?.callerTraceId
        ? { traceId: ids.callerTraceId }
        : {}),
  };
}

/** The trace id of a W3C `traceparent` header, if it is a valid one. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  const value = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  const match = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(value?.trim() ?? '');
  return match && !/^0+$/.test(match[1]!) ? match[1] : undefined;
}
