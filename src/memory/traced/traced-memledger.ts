/**
 * `traceMemledger(memledger)`: the same memledger, whose memory handles trace every command and
 * query (a `search_memory` span per recall carrying the Recall's seq, id and recalled ids, a
 * `delete_memory` span per Deletion carrying its targets, ...), count refused commands by code,
 * and measure recalls. Spans start in the caller's active context, so a recall made while an
 * agent's model-call span is active nests under it. Methods not listed pass through untouched.
 */
import type { Memledger, MemoryHandle } from '../index.js';
import { memledgerInstruments } from '../../telemetry/instruments.js';
import {
  OPERATIONS,
  type MemoryTelemetryOptions,
  type OperationSpec,
} from '../../telemetry/memory-operations.js';
import { GenAiAttr, MemledgerAttr } from '../../telemetry/semconv.js';
import { countRejected } from '../../telemetry/rejections.js';
import { metricsActive, traced, tracingActive } from '../../telemetry/tracing.js';

export type { MemoryTelemetryOptions } from '../../telemetry/memory-operations.js';

const TRACED = Symbol.for('memledger.telemetry.traced');
const UNTRACED = Symbol.for('memledger.telemetry.untraced');

/**
 * The handle under a traced one (or `handle` itself): for work that must not trace itself,
 * such as health checks and metric collection.
 */
export function untraced(handle: MemoryHandle): MemoryHandle {
  return (handle as { [UNTRACED]?: MemoryHandle })[UNTRACED] ?? handle;
}

/** `memledger` with traced memory handles; a memledger traced already is returned as it is. */
export function traceMemledger(
  memledger: Memledger,
  options: MemoryTelemetryOptions = {},
): Memledger {
  if ((memledger as { [TRACED]?: boolean })[TRACED]) return memledger;
  const handles = new WeakMap<MemoryHandle, MemoryHandle>();
  const wrap = (handle: MemoryHandle): MemoryHandle => {
    let traced = handles.get(handle);
    if (!traced) {
      traced = traceHandle(handle, options);
      handles.set(handle, traced);
    }
    return traced;
  };
  const overrides: Partial<Memledger> = {
    memory: async (memoryId) => wrap(await memledger.memory(memoryId)),
    openMemories: () => memledger.openMemories().map(wrap),
    onMemoryOpened: (listener) => memledger.onMemoryOpened((handle) => listener(wrap(handle))),
  };
  return new Proxy(memledger, {
    get(target, property) {
      if (property === TRACED) return true;
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof Memledger];
      return Reflect.get(target, property, target) as unknown;
    },
  });
}

function traceHandle(handle: MemoryHandle, options: MemoryTelemetryOptions): MemoryHandle {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(handle, {
    get(target, property) {
      if (property === UNTRACED) return target;
      const known = methods.get(property);
      if (known) return known;
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      const spec = typeof property === 'string' ? OPERATIONS[property] : undefined;
      const method = value as (...args: unknown[]) => unknown;
      // Untraced methods are bound once, so `this` stays the handle.
      const wrapped = spec
        ? (...args: unknown[]) => run(target, method, args, spec, options)
        : method.bind(target);
      methods.set(property, wrapped);
      return wrapped;
    },
  });
}

function run(
  handle: MemoryHandle,
  method: (...args: unknown[]) => unknown,
  args: unknown[],
  spec: OperationSpec,
  options: MemoryTelemetryOptions,
): Promise<unknown> {
  const tracing = tracingActive();
  if (!tracing) {
    if (!metricsActive()) {
      // No SDK registered: nothing to record, so the call costs one check.
      return method.apply(handle, args) as Promise<unknown>;
    }
    return measured(handle, method, args, spec);
  }
  const attributes = {
    ...(spec.genAi ? { [GenAiAttr.operationName]: spec.genAi } : {}),
    [GenAiAttr.storeId]: handle.memoryId,
    [MemledgerAttr.operation]: spec.name,
    ...spec.before?.(args, options),
  };
  const started = performance.now();
  return traced(spec.genAi ?? `memledger.${spec.name}`, attributes, async (span) => {
    try {
      const result = await method.apply(handle, args);
      spec.after?.(result, span);
      if (spec.name === 'recall') recordRecall(result, started);
      return result;
    } catch (error) {
      if (spec.command) countRejected(error, spec.name);
      throw error;
    }
  });
}

/** Metrics on, tracing off (the application without OTEL_*): only what the metrics need. */
async function measured(
  handle: MemoryHandle,
  method: (...args: unknown[]) => unknown,
  args: unknown[],
  spec: OperationSpec,
): Promise<unknown> {
  const started = spec.name === 'recall' ? performance.now() : 0;
  try {
    const result = await method.apply(handle, args);
    if (spec.name === 'recall') recordRecall(result, started);
    return result;
  } catch (error) {
    if (spec.command) countRejected(error, spec.name);
    throw error;
  }
}

function recordRecall(result: unknown, started: number): void {
  const instruments = memledgerInstruments();
  instruments.recallDuration.record((performance.now() - started) / 1000);
  const items = (result as { items?: readonly unknown[] } | null)?.items;
  instruments.recallHits.record(items?.length ?? 0);
}
