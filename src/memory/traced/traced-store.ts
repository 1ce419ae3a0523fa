/**
 * `traceStore(store)`: the same store, whose logs put a span around each store call (append,
 * read, get, last seq) and record the append metrics (latency and size per store, events per
 * kind). Everything else, and any method the port gains later, passes through untouched.
 */
import { type Attributes, type Span } from '@opentelemetry/api';
import type { MemoryEvent, Sequenced } from '../../core/index.js';
import type {
  AppendOptions,
  EventLog,
  MemoryStore,
  ReadOptions,
} from '../../store/event-log.port.js';
import type { ContentCodec } from '../../store/content-codec.js';
import { memledgerInstruments } from '../../telemetry/instruments.js';
import { GenAiAttr, MemledgerAttr, SpanName } from '../../telemetry/semconv.js';
import {
  markFailed,
  memledgerTracer,
  metricsActive,
  traced,
  tracingActive,
} from '../../telemetry/tracing.js';

const TRACED = Symbol.for('memledger.telemetry.traced');

/** The adapter kind a store's description names (a low-cardinality metric label). */
export function storeKindOf(store: Pick<MemoryStore, 'description'>): string {
  const { description } = store;
  if (description === 'in-memory') return 'in-memory';
  if (description.startsWith('SQLite')) return 'sqlite';
  if (description.startsWith('EventStoreDB')) return 'eventstoredb';
  return 'other';
}

/** `store` with traced and measured logs; a store traced already is returned as it is. */
export function traceStore(store: MemoryStore): MemoryStore {
  if ((store as { [TRACED]?: boolean })[TRACED]) return store;
  const kind = storeKindOf(store);
  return new Proxy(store, {
    get(target, property) {
      if (property === TRACED) return true;
      if (property === 'log') return (memoryId?: string) => traceLog(target.log(memoryId), kind);
      // The same store with a content codec (sealedStore) stays traced.
      if (property === 'withCodec' && target.withCodec)
        return (codec: ContentCodec) => traceStore(target.withCodec!(codec));
      return Reflect.get(target, property, target) as unknown;
    },
  });
}

function traceLog(log: EventLog, kind: string): EventLog {
  const attributes: Attributes = { [GenAiAttr.storeId]: log.memoryId, [MemledgerAttr.store]: kind };
  const overrides: Partial<EventLog> = {
    append: (events, options) => appendTraced(log, events, options, attributes),
    read: (options) => readTraced(log, options, attributes),
    get: (id) => traced(SpanName.get, attributes, () => log.get(id)),
    lastSeq: () => traced(SpanName.lastSeq, attributes, () => log.lastSeq()),
  };
  return new Proxy(log, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof EventLog];
      const value = Reflect.get(target, property, target) as unknown;
      // Other ways of appending an adapter may offer (any method named append*) get the same
      // span, so a recall appended under the store's lock still shows its store call.
      if (
        typeof value === 'function' &&
        typeof property === 'string' &&
        /^append./.test(property)
      ) {
        const method = value as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          // As appendTraced: with no SDK registered, the call as it is.
          if (!tracingActive() && !metricsActive()) return method.apply(target, args);
          const started = performance.now();
          const span = { ...attributes, [MemledgerAttr.appendMethod]: property };
          return traced(SpanName.append, span, async () => {
            const result = await method.apply(target, args);
            const stored = Array.isArray(result) ? (result as MemoryEvent[]) : [];
            recordAppend(attributes, stored, started);
            return result;
          });
        };
      }
      return value;
    },
  });
}

function appendTraced(
  log: EventLog,
  events: readonly MemoryEvent[],
  options: AppendOptions | undefined,
  attributes: Attributes,
): Promise<readonly Sequenced[]> {
  // Without an SDK nothing would be recorded: the append runs as it is.
  if (!tracingActive() && !metricsActive()) return log.append(events, options);
  const started = performance.now();
  return traced(
    SpanName.append,
    { ...attributes, [MemledgerAttr.appendEvents]: events.length },
    async (span) => {
      const stored = await log.append(events, options);
      const last = stored.at(-1);
      if (last) span.setAttribute(MemledgerAttr.eventSeq, last.seq);
      recordAppend(attributes, events, started);
      return stored;
    },
  );
}

/** Metric attributes by store and kind, built once (they are asked for on every append). */
const attributeCache = new Map<string, Attributes>();
function attributesOf(store: unknown, kind?: string): Attributes {
  const key = `${String(store)}/${kind ?? ''}`;
  let found = attributeCache.get(key);
  if (!found) {
    found = kind
      ? { [MemledgerAttr.store]: store as string, [MemledgerAttr.eventKind]: kind }
      : { [MemledgerAttr.store]: store as string };
    attributeCache.set(key, found);
  }
  return found;
}

/** The append metrics: latency and size per store, events per kind. */
function recordAppend(attributes: Attributes, events: readonly MemoryEvent[], started: number) {
  if (!metricsActive()) return;
  const metrics = memledgerInstruments();
  const storeKind = attributes[MemledgerAttr.store];
  const store = attributesOf(storeKind);
  metrics.appendDuration.record((performance.now() - started) / 1000, store);
  metrics.appendSize.record(approximateBytes(events), store);
  for (const event of events) metrics.eventsAppended.add(1, attributesOf(storeKind, event.kind));
}

/** The size of `events` as JSON, near enough for a histogram and without serializing them. */
function approximateBytes(events: readonly MemoryEvent[]): number {
  let bytes = 0;
  for (const event of events) {
    bytes += 64;
    for (const value of Object.values(event)) {
      if (typeof value === 'string') bytes += value.length + 16;
      else if (Array.isArray(value)) bytes += value.length * 40;
      else bytes += 16;
    }
  }
  return bytes;
}

/**
 * A read whose span covers the whole iteration. A span nobody records (tracing off) is ended
 * at once and the store's own iterator is returned, so reads cost nothing extra per event.
 */
function readTraced(
  log: EventLog,
  options: ReadOptions | undefined,
  attributes: Attributes,
): AsyncIterable<Sequenced> {
  return {
    [Symbol.asyncIterator]() {
      const span = memledgerTracer().startSpan(SpanName.read, {
        attributes: { ...attributes, [MemledgerAttr.fromSeq]: options?.fromSeq ?? 0 },
      });
      const inner = log.read(options)[Symbol.asyncIterator]();
      if (!span.isRecording()) {
        span.end();
        return inner;
      }
      return countingIterator(inner, span);
    },
  };
}

function countingIterator(inner: AsyncIterator<Sequenced>, span: Span): AsyncIterator<Sequenced> {
  let count = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.setAttribute(MemledgerAttr.readEvents, count);
    span.end();
  };
  return {
    async next() {
      try {
        const result = await inner.next();
        if (result.done) end();
        else count++;
        return result;
      } catch (error) {
        markFailed(span, error);
        end();
        throw error;
      }
    },
    async return(value?: unknown) {
      end();
      return (await inner.return?.(value)) ?? { done: true, value: undefined };
    },
  };
}
