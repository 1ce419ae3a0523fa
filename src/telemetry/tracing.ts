/**
 * Spans through `@opentelemetry/api` only: without an SDK registered every call here is a
 * no-op span, so the library costs next to nothing when tracing is off. Errors mark the span
 * with their code (`error.type`), never with their message: a message may quote what a caller
 * sent, and no content goes on a span.
 */
import {
  context,
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  metrics,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type MeterProvider,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { MemledgerAttr, SCOPE } from './semconv.js';

/** What the global tracer provider delegates to while no SDK is registered. */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * True when a tracer provider (an SDK) is registered: without one every span would be a no-op,
 * so the instrumentation skips building spans and their attributes altogether. Checked at each
 * call: a provider registered later is picked up.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  return (
    !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_TRACER_PROVIDER
  );
}

let seenMeterProvider: MeterProvider | undefined;
let meterIsNoop = true;

/** True when a meter provider (an SDK) is registered, so recording metrics does something. */
export function metricsActive(): boolean {
  const provider = metrics.getMeterProvider();
  if (provider !== seenMeterProvider) {
    seenMeterProvider = provider;
    meterIsNoop = provider.getMeter(SCOPE) === createNoopMeter();
  }
  return !meterIsNoop;
}

/** A span that records nothing, for work run while no tracer provider is registered. */
const NOT_RECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

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
  if (!tracingActive()) return work(NOT_RECORDED);
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
