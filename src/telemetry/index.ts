/**
 * memledger's OpenTelemetry instrumentation, on `@opentelemetry/api` only: spans and metrics are
 * no-ops until an application registers an SDK. See docs/operations.md.
 */
export { memledgerInstruments, type MemledgerInstruments } from './instruments.js';
export { type MemoryTelemetryOptions } from './memory-operations.js';
export {
  GenAiAttr,
  MemledgerAttr,
  MemoryOperation,
  MetricName,
  SCOPE,
  SpanName,
} from './semconv.js';
export { countRejected } from './rejections.js';
export { errorCodeOf, markFailed, memledgerTracer, traced } from './tracing.js';
