/**
 * The application's OpenTelemetry SDK. Metrics are always on: one meter provider per process,
 * read by a Prometheus exporter that `/metrics` serves (it opens no port of its own). Traces are
 * exported only when the standard variables ask for it (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER`), and nothing is loaded
 * otherwise; `OTEL_SDK_DISABLED=true` turns both exports off.
 */
import { readFileSync } from 'node:fs';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** The process's Prometheus reader and meter provider. */
export interface AppMetrics {
  readonly prometheus: PrometheusExporter;
  /** Whether memledger's instruments report to this reader (false if another SDK was registered first). */
  readonly global: boolean;
}

let shared: AppMetrics | undefined;

/**
 * The process's metrics, registered as the global meter provider on first use. An embedding
 * application that registered its own provider first keeps it (then `/metrics` serves only
 * what is registered here, and memledger's instruments report to the embedding provider).
 */
export function appMetrics(): AppMetrics {
  if (!shared) {
    const prometheus = new PrometheusExporter({ preventServerStart: true });
    const provider = new MeterProvider({ readers: [prometheus] });
    shared = { prometheus, global: metrics.setGlobalMeterProvider(provider) };
  }
  return shared;
}

/** Exported traces, started from the environment. */
export interface AppTracing {
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporters === 'none') return false;
  return Boolean(
    exporters ||
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim(),
  );
}

/**
 * Registers the tracer provider the environment asks for (OTLP over HTTP by default; `console`
 * in `OTEL_TRACES_EXPORTER` prints spans), with W3C trace-context propagation and the
 * AsyncLocalStorage context manager; `undefined` when tracing is not asked for. The OTLP
 * exporter reads its endpoint, headers and timeout from the standard `OTEL_EXPORTER_OTLP_*`.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv = process.env,
): Promise<AppTracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } =
    await import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } =
    await import('@opentelemetry/resources');
  const names = (env.OTEL_TRACES_EXPORTER?.trim() || 'otlp').split(',').map((n) => n.trim());
  const spanProcessors = names.flatMap((name) => {
    if (name === 'otlp') return [new BatchSpanProcessor(new OTLPTraceExporter())];
    if (name === 'console') return [new BatchSpanProcessor(new ConsoleSpanExporter())];
    return [];
  });
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'memledger', 'service.version': version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
