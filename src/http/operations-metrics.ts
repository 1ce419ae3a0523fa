/**
 * The gauges read at collection time: open memories, the read models' lag behind their logs
 * (the largest over the most recently used open memories, in events and in seconds), and the
 * erasures whose clean-up (the scrub of old page images) is pending, and for how long; with an
 * embedder, each vector index version's progress (content not embedded yet, memories caught
 * up), so a model change can be watched while it builds; and each projection layout being built
 * beside the serving one (events it has yet to apply). Registered
 * while the application runs; they read through the untraced store, so a scrape makes no spans.
 */
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { metrics, type BatchObservableCallback, type Observable } from '@opentelemetry/api';
import type { Memledger } from '../memory/index.js';
import { MEMLEDGER, MEMORY_STORE } from '../nest.js';
import type { MemoryStore } from '../store/event-log.port.js';
import { readModelLag, type ReadModelLag } from '../memory/traced/index.js';
import { MemledgerAttr, MetricName, SCOPE } from '../telemetry/index.js';

/** The open-memory and lag gauges of one application. */
@Injectable()
export class OperationsMetrics implements OnModuleInit, OnModuleDestroy {
  /** The last lag measured (by a scrape or a readiness check). */
  readonly lag: () => Promise<ReadModelLag>;
  private stop: (() => void) | undefined;

  constructor(
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
    @Inject(MEMORY_STORE) store: MemoryStore,
  ) {
    this.lag = readModelLag(memledger, store);
  }

  onModuleInit(): void {
    const meter = metrics.getMeter(SCOPE);
    const open = meter.createObservableGauge(MetricName.openMemories, {
      description: 'Memories open in this process (their read models ready to answer).',
      unit: '{memory}',
    });
    const lagEvents = meter.createObservableGauge(MetricName.lagEvents, {
      description: 'Largest number of events the read models of an open memory lack.',
      unit: '{event}',
    });
    const lagSeconds = meter.createObservableGauge(MetricName.lagSeconds, {
      description: 'Longest time the read models of an open memory have been seen behind.',
      unit: 's',
    });
    const cleanupPending = meter.createObservableGauge(MetricName.erasureCleanupPending, {
      description:
        'Erasures whose clean-up is pending: files may still hold page images from before them.',
      unit: '{erasure}',
    });
    const cleanupSeconds = meter.createObservableGauge(MetricName.erasureCleanupSeconds, {
      description: 'How long the oldest pending erasure clean-up has been waiting (0: none).',
      unit: 's',
    });
    const vectorsBehind = meter.createObservableGauge(MetricName.vectorsBehind, {
      description: 'Content items a vector index version has not embedded yet, over all memories.',
      unit: '{item}',
    });
    const vectorsReady = meter.createObservableGauge(MetricName.vectorsMemoriesReady, {
      description: 'Memories whose vectors of this version are caught up with their content.',
      unit: '{memory}',
    });
    const vectorsMemories = meter.createObservableGauge(MetricName.vectorsMemories, {
      description: 'Memories the read models hold, which a vector index version must cover.',
      unit: '{memory}',
    });
    const layoutBehind = meter.createObservableGauge(MetricName.layoutBuildBehind, {
      description:
        'Events a projection layout built beside the serving one has yet to apply, over all memories.',
      unit: '{event}',
    });
    const observed: Observable[] = [
      layoutBehind,
      open,
      lagEvents,
      lagSeconds,
      cleanupPending,
      cleanupSeconds,
      vectorsBehind,
      vectorsReady,
      vectorsMemories,
    ];
    const callback: BatchObservableCallback = async (result) => {
      result.observe(open, this.memledger.openMemories().length);
      for (const build of this.memledger.projections.layoutBuilds())
        if (build.total > 0)
          result.observe(layoutBehind, build.total - build.applied, {
            [MemledgerAttr.projection]: build.projection,
            [MemledgerAttr.projectionLayout]: build.to,
          });
      try {
        for (const version of this.memledger.vectors?.progress() ?? []) {
          const attributes = {
            [MemledgerAttr.vectorsModel]: version.model,
            [MemledgerAttr.vectorsDimensions]: version.dimensions,
            [MemledgerAttr.vectorsQuantization]: version.quantization,
            [MemledgerAttr.vectorsCurrent]: version.current,
          };
          result.observe(vectorsBehind, version.behind, attributes);
          result.observe(vectorsReady, version.readyMemories, attributes);
          result.observe(vectorsMemories, version.memories, attributes);
        }
      } catch {
        // A read-model file that does not answer leaves the progress unreported.
      }
      try {
        const backlog = this.memledger.erasureCleanup?.backlog();
        result.observe(cleanupPending, backlog?.erasures ?? 0);
        result.observe(cleanupSeconds, backlog?.oldestSeconds ?? 0);
      } catch {
        // A key store that does not answer leaves the backlog unreported.
      }
      try {
        const lag = await this.lag();
        result.observe(lagEvents, lag.events);
        result.observe(lagSeconds, lag.seconds);
      } catch {
        // A store that does not answer leaves the lag unreported; readiness says why.
      }
    };
    meter.addBatchObservableCallback(callback, observed);
    this.stop = () => meter.removeBatchObservableCallback(callback, observed);
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
