/**
 * Spans through `@opentelemetry/api` only: without an SDK registered every call here is a
 * no-op span, so the library costs next to nothing when tracing is off. Errors mark the span
 * with their code (`error.type`), never with their message: a message may quote what a caller
 * sent, and no content goes on a span.
 */
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { MemledgerAttr, SCOPE } from './semconv.js';

/** The tracer of the provider registered now (a provider registered later is picked up). */
export function memledgerTracer(): Tracer {
  return trace.getTracer(SCOPE);
}

/** The memledger error code of `error`, if it carries one (`MemoryError` and kin). */
export function errorCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Marks `span` as failed by `error`: `error.type` is the code (or the error's class name). */
export function markFailed(span: Span, error: unknown): void {
  const code = errorCodeOf(error);
  const type = code ?? (error instanceof Error ? error.name : 'Error');
  span.setAttribute('error.type', type);
  if (code) span.setAttribute(MemledgerAttr.errorCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * Runs `work` inside an active span `name` (its children nest under it), ends the span, and
 * marks it failed when `work` throws. A span nobody records (no SDK registered, or sampled out)
 * is ended at once and `work` runs as it is: no context switch, no extra promise on the path of
 * every append and recall when tracing is off.
 */
export function traced<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const span = memledgerTracer().startSpan(name, { kind, attributes });
  if (!span.isRecording()) {
    span.end();
    return work(span);
  }
  return context.with(trace.setSpan(context.active(), span), async () => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
