/**
 * The real OpenTelemetry SDK with in-memory exporters, registered globally for one spec file
 * (each jest file has its own globals): spans land in `spans()`, metrics are collected on demand.
 * Registering the tracer provider also installs the AsyncLocalStorage context manager and the
 * W3C trace-context propagator, as the application's SDK does.
 */
import { metrics, trace, type Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';

/** The SDK of one spec file. */
export interface TestOtel {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Collects every metric now. */
  collect(): Promise<MetricData[]>;
  /** Flushes and unregisters everything. */
  shutdown(): Promise<void>;
}

/** Registers the SDK globally; call once per spec file (in `beforeAll`). */
export function registerTestOtel(): TestOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  tracerProvider.register();
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async collect() {
      metricExporter.reset();
      await reader.forceFlush();
      return metricExporter
        .getMetrics()
        .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
    },
  };
}

/** The one span named `name` (fails when there are none or several). */
export function onlySpan(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) {
    throw new Error(
      `Expected one span ${name}, got ${found.length}: ${spans.map((s) => s.name).join(', ')}`,
    );
  }
  return found[0]!;
}

/** The spans whose parent is `parent`. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
}

/** Every attribute value of every span, as text: for checking that no content leaked. */
export function allAttributeText(spans: readonly ReadableSpan[]): string {
  return spans
    .map((span) => [span.name, ...Object.values(span.attributes).map(String)].join(' '))
    .join('\n');
}

/** The sum of a counter's data points whose attributes include `where`. */
export function counterValue(
  found: readonly MetricData[],
  name: string,
  where: Attributes = {},
): number {
  const metric = found.find((m) => m.descriptor.name === name);
  if (!metric) return 0;
  return metric.dataPoints
    .filter((point) => Object.entries(where).every(([k, v]) => point.attributes[k] === v))
    .reduce((sum, point) => sum + (typeof point.value === 'number' ? point.value : 0), 0);
}
