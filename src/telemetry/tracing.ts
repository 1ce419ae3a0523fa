/**
 * Spans through `@opentelemetry/api` only: without an SDK registered every call here is a
 * no-op span (and the API is not even loaded, see otel-api.ts), so the library costs next to
 * nothing when tracing is off. Errors mark the span
 * with their code (`error.type`), never with their message: a message may quote what a caller
 * sent, and no content goes on a span.
 */
import type {
  Attributes,
  MeterProvider,
  Span,
  SpanContext,
  SpanKind,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { otelApi, registeredOtelApi } from './otel-api.js';
import { MemledgerAttr, SCOPE } from './semconv.js';

/** What the global tracer provider delegates to while no SDK is registered. */
let noTracerProvider: TracerProvider | undefined;

/**
 * True when a tracer provider (an SDK) is registered: without one every span would be a no-op,
 * so the instrumentation skips building spans and their attributes altogether. Checked at each
 * call: a provider registered later is picked up.
 */
export function tracingActive(): boolean {
  const api = registeredOtelApi();
  if (!api) return false;
  noTracerProvider ??= new api.ProxyTracerProvider().getDelegate();
  const provider = api.trace.getTracerProvider();
  return (
    !(provider instanceof api.ProxyTracerProvider) || provider.getDelegate() !== noTracerProvider
  );
}

let seenMeterProvider: MeterProvider | undefined;
let meterIsNoop = true;

/** True when a meter provider (an SDK) is registered, so recording metrics does something. */
export function metricsActive(): boolean {
  const api = registeredOtelApi();
  if (!api) return false;
  const provider = api.metrics.getMeterProvider();
  if (provider !== seenMeterProvider) {
    seenMeterProvider = provider;
    meterIsNoop = provider.getMeter(SCOPE) === api.createNoopMeter();
  }
  return !meterIsNoop;
}

/** The span context of a span nobody records (the API's `INVALID_SPAN_CONTEXT`). */
const INVALID_SPAN_CONTEXT: SpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: 0,
};

/** A span that records nothing, for work run while no tracer provider is registered. */
const NOT_RECORDED: Span = {
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => NOT_RECORDED,
  setAttributes: () => NOT_RECORDED,
  addEvent: () => NOT_RECORDED,
  addLink: () => NOT_RECORDED,
  addLinks: () => NOT_RECORDED,
  setStatus: () => NOT_RECORDED,
  updateName: () => NOT_RECORDED,
  end: () => undefined,
  isRecording: () => false,
  recordException: () => undefined,
};

/** The tracer of the provider registered now (a provider registered later is picked up). */
export function memledgerTracer(): Tracer {
  return otelApi().trace.getTracer(SCOPE);
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
  span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: type });
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
  kind?: SpanKind,
): Promise<T> {
  if (!tracingActive()) return work(NOT_RECORDED);
  const { context, trace, SpanKind } = otelApi();
  const span = memledgerTracer().startSpan(name, { kind: kind ?? SpanKind.INTERNAL, attributes });
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
