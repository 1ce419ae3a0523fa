/**
 * What memledger's instrumentation costs when tracing is off (issue 12: <= 5 % on append and
 * recall). Memledgers on their own SQLite files (synchronous=NORMAL, so fsync does not hide the
 * overhead) run the same appends and recalls, one operation of each in turn, so machine noise
 * and drift fall on both sides of each comparison:
 * - baseline: `openMemledger` without instrumentation (and a second one, the control, whose ratio
 *   to the baseline is the harness's noise floor);
 * - instrumented, no SDK: `traceStore` + `traceMemledger`, nothing registered (a library user);
 * - instrumented + metrics SDK: the application's default (a MeterProvider read by Prometheus,
 *   tracing off);
 * - instrumented + tracing on (batch processor, spans dropped by the exporter): for information.
 * Each ratio is the instrumented median over the baseline median of the same run.
 *
 * Run alone: `node --import tsx bench/tracing-overhead.bench.ts [--quick]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics, trace } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { openMemledger, type Memledger, type MemoryHandle } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { traceMemledger, traceStore } from '../src/memory/traced/index.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { percentile, report, timeMs } from './support.js';

type Setup = 'baseline' | 'instrumented';

interface Subject {
  readonly memledger: Memledger;
  readonly memory: MemoryHandle;
}

async function open(dir: string, name: string, setup: Setup, documents: number): Promise<Subject> {
  const raw = openSqliteStore({ path: join(dir, `${name}.db`), synchronous: 'NORMAL' });
  const store = setup === 'baseline' ? raw : traceStore(raw);
  const plain = openMemledger({ store });
  const memledger = setup === 'baseline' ? plain : traceMemledger(plain);
  const corpus = searchCorpus(documents);
  for (let i = 0; i < documents; i += 1000) {
    await raw.log().append(corpus.slice(i, i + 1000).map((event) => ({ ...event, seq: null })));
  }
  const memory = await memledger.memory();
  await memory.catchUp();
  return { memledger, memory };
}

/**
 * Medians of `rounds` x `queries.length` appends and recalls on `baseline` and `other`, one
 * operation of each in turn (who goes first alternates), so machine noise and drift fall on
 * both sides alike.
 */
async function compare(
  baseline: Subject,
  other: Subject,
  queries: readonly string[],
  rounds: number,
) {
  const times = {
    baseAppend: [] as number[],
    baseRecall: [] as number[],
    append: [] as number[],
    recall: [] as number[],
  };
  let turn = 0;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < queries.length; i++) {
      const first = turn++ % 2 === 0;
      for (const subject of first ? [baseline, other] : [other, baseline]) {
        const ms = await timeMs(() =>
          subject.memory.recordMessage({ speaker: 'bench', content: `round ${round} note ${i}` }),
        );
        (subject === baseline ? times.baseAppend : times.append).push(ms);
      }
    }
    for (const query of queries) {
      const first = turn++ % 2 === 0;
      for (const subject of first ? [baseline, other] : [other, baseline]) {
        const ms = await timeMs(() => subject.memory.recall({ query, limit: 5 }));
        (subject === baseline ? times.baseRecall : times.recall).push(ms);
      }
    }
  }
  const p50 = (samples: number[]) => percentile(samples, 50);
  return {
    baseAppend: p50(times.baseAppend),
    baseRecall: p50(times.baseRecall),
    append: p50(times.append),
    recall: p50(times.recall),
  };
}

/** Drops every span: tracing on, without an exporter's own cost. */
const droppingExporter: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: 0 }),
  shutdown: async () => undefined,
};

export async function benchTracingOverhead(documents = 10_000, perRound = 100, rounds = 10) {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-tracing-'));
  try {
    const queries = searchQueries(searchCorpus(documents), perRound);
    const baseline = await open(dir, 'baseline', 'baseline', documents);
    const control = await open(dir, 'control', 'baseline', documents);
    const instrumented = await open(dir, 'instrumented', 'instrumented', documents);
    const withMetrics = await open(dir, 'metrics', 'instrumented', documents);
    const withTracing = await open(dir, 'tracing', 'instrumented', documents);
    // Warm-up, not counted.
    await compare(baseline, instrumented, queries.slice(0, 20), 2);

    // Baseline against an identical uninstrumented memledger: the harness's own noise floor.
    const sameSetup = await compare(baseline, control, queries, rounds);
    const noSdk = await compare(baseline, instrumented, queries, rounds);
    const meterProvider = new MeterProvider({
      readers: [new PrometheusExporter({ preventServerStart: true })],
    });
    metrics.setGlobalMeterProvider(meterProvider);
    const metricsOn = await compare(baseline, withMetrics, queries, rounds);
    const tracerProvider = new NodeTracerProvider({
      spanProcessors: [new BatchSpanProcessor(droppingExporter)],
    });
    tracerProvider.register();
    const tracingOn = await compare(baseline, withTracing, queries, rounds);
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    for (const subject of [baseline, control, instrumented, withMetrics, withTracing]) {
      await subject.memledger.close();
    }

    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    report('tracing-overhead', {
      documents,
      'operations per side': perRound * rounds,
      'baseline append p50 ms (no SDK run)': noSdk.baseAppend,
      'baseline recall p50 ms (no SDK run)': noSdk.baseRecall,
      'control (uninstrumented vs baseline): append p50 ratio': ratio(
        sameSetup.append,
        sameSetup.baseAppend,
      ),
      'control (uninstrumented vs baseline): recall p50 ratio': ratio(
        sameSetup.recall,
        sameSetup.baseRecall,
      ),
      'instrumented, no SDK: append p50 ratio': ratio(noSdk.append, noSdk.baseAppend),
      'instrumented, no SDK: recall p50 ratio': ratio(noSdk.recall, noSdk.baseRecall),
      'metrics SDK, tracing off: append p50 ratio': ratio(metricsOn.append, metricsOn.baseAppend),
      'metrics SDK, tracing off: recall p50 ratio': ratio(metricsOn.recall, metricsOn.baseRecall),
      'tracing on (info): append p50 ratio': ratio(tracingOn.append, tracingOn.baseAppend),
      'tracing on (info): recall p50 ratio': ratio(tracingOn.recall, tracingOn.baseRecall),
      target: 'tracing off <= 1.05x on append and recall',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const quick = process.argv.includes('--quick');
  await benchTracingOverhead(quick ? 2000 : 10_000, quick ? 50 : 100, quick ? 4 : 10);
}
