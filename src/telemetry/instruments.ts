/**
 * The metric instruments, through `@opentelemetry/api` only. The API has no proxy for meters
 * (a meter taken before an SDK is registered stays a no-op), so instruments are created from
 * the meter provider registered now and created again when it changes.
 */
import type { Counter, Histogram, MeterProvider, UpDownCounter } from '@opentelemetry/api';
import { otelApi } from './otel-api.js';
import { MetricName, SCOPE } from './semconv.js';

/** Seconds: from half a millisecond (an in-memory append) to 10 s (an append's deadline). */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bytes: an event is a few hundred bytes; an append batch is at most a few MiB. */
const BYTES = [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304];
/** Items a recall returns: 1 to 100. */
const HITS = [0, 1, 2, 3, 5, 10, 20, 50, 100];

/** memledger's synchronous instruments. */
export interface MemledgerInstruments {
  readonly appendDuration: Histogram;
  readonly appendSize: Histogram;
  readonly eventsAppended: Counter;
  readonly recallDuration: Histogram;
  readonly recallHits: Histogram;
  readonly rejected: Counter;
  readonly sseClients: UpDownCounter;
}

let cached: { provider: MeterProvider; instruments: MemledgerInstruments } | undefined;

/** The instruments of the meter provider registered now. */
export function memledgerInstruments(): MemledgerInstruments {
  const provider = otelApi().metrics.getMeterProvider();
  if (cached?.provider !== provider) cached = { provider, instruments: create(provider) };
  return cached.instruments;
}

function create(provider: MeterProvider): MemledgerInstruments {
  const meter = provider.getMeter(SCOPE);
  return {
    appendDuration: meter.createHistogram(MetricName.appendDuration, {
      description: 'Duration of one store append (a batch of events), by store.',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS },
    }),
    appendSize: meter.createHistogram(MetricName.appendSize, {
      description: 'Approximate JSON size of one store append, by store.',
      unit: 'By',
      advice: { explicitBucketBoundaries: BYTES },
    }),
    eventsAppended: meter.createCounter(MetricName.eventsAppended, {
      description: 'Events appended, by kind and store.',
      unit: '{event}',
    }),
    recallDuration: meter.createHistogram(MetricName.recallDuration, {
      description: 'Duration of a recall (search plus the Recall append, retries included).',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS },
    }),
    recallHits: meter.createHistogram(MetricName.recallHits, {
      description: 'Items one recall put in the context.',
      unit: '{item}',
      advice: { explicitBucketBoundaries: HITS },
    }),
    rejected: meter.createCounter(MetricName.rejected, {
      description: 'Commands refused, by error code and operation.',
      unit: '{command}',
    }),
    sseClients: meter.createUpDownCounter(MetricName.sseClients, {
      description: 'Open event-stream (SSE) clients.',
      unit: '{client}',
    }),
  };
}
