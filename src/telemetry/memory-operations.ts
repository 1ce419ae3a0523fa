/**
 * What each traced memory operation puts on its span: the GenAI operation name, the attributes
 * known before it runs (from its arguments: ids, never content) and those known after (the event
 * it wrote: seq, id, recalled ids). Query text only with `captureQueries`.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { GenAiAttr, MemledgerAttr, MemoryOperation } from './semconv.js';

/** Options of memledger's instrumentation. */
export interface MemoryTelemetryOptions {
  /**
   * Put the query text of recalls and searches on their spans (`gen_ai.memory.query.text`).
   * Stored content (messages, documents) never goes on a span.
   * @defaultValue false
   */
  readonly captureQueries?: boolean;
}

/** How one facade method is traced. */
export interface OperationSpec {
  /** `memledger.operation`: the method in snake case. */
  readonly name: string;
  /** `gen_ai.operation.name` (and the span name) for memory operations; else `memledger.<name>`. */
  readonly genAi?: string;
  /** Whether a refusal counts as a rejected command. */
  readonly command?: boolean;
  /** Attributes from the arguments. */
  readonly before?: (args: readonly unknown[], options: MemoryTelemetryOptions) => Attributes;
  /** Attributes from the result. */
  readonly after?: (result: unknown, span: Span) => void;
}

interface WrittenEvent {
  readonly id: string;
  readonly seq: number;
  readonly kind: string;
  readonly recalled?: readonly string[];
}

/** The event an operation wrote, on its span. */
function written(event: unknown, span: Span): void {
  const { id, seq, kind, recalled } = event as WrittenEvent;
  span.setAttributes({
    [MemledgerAttr.eventId]: id,
    [MemledgerAttr.eventSeq]: seq,
    [MemledgerAttr.eventKind]: kind,
  });
  if (recalled) {
    span.setAttributes({
      [MemledgerAttr.recalledIds]: [...recalled],
      [GenAiAttr.recordCount]: recalled.length,
    });
  } else if (kind === 'message' || kind === 'document') {
    span.setAttribute(GenAiAttr.recordId, id);
  }
}

/** The query of a call, only when the operator turned queries on. */
function queryOf(query: unknown, options: MemoryTelemetryOptions): Attributes {
  return options.captureQueries && typeof query === 'string'
    ? { [GenAiAttr.queryText]: query }
    : {};
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function targetsOf(input: unknown): Attributes {
  const targets = field(input, 'targets');
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string')) return {};
  return {
    [MemledgerAttr.deletionTargets]: targets,
    [GenAiAttr.recordCount]: targets.length,
    ...(targets.length === 1 ? { [GenAiAttr.recordId]: targets[0] } : {}),
  };
}

const create = (name: string): OperationSpec => ({
  name,
  genAi: MemoryOperation.create,
  command: true,
  after: written,
});

/** The traced methods of a memory handle, by method name. */
export const OPERATIONS: Readonly<Record<string, OperationSpec>> = {
  recordMessage: create('record_message'),
  addDocument: create('add_document'),
  recall: {
    name: 'recall',
    genAi: MemoryOperation.search,
    command: true,
    before: ([request], options) => queryOf(field(request, 'query'), options),
    after: (result, span) => written(field(result, 'recall'), span),
  },
  recordRecall: {
    name: 'record_recall',
    genAi: MemoryOperation.search,
    command: true,
    before: ([input], options) => queryOf(field(input, 'query'), options),
    after: written,
  },
  deleteContent: {
    name: 'delete_content',
    genAi: MemoryOperation.delete,
    command: true,
    before: ([input]) => targetsOf(input),
    after: written,
  },
  // Erasure is the second tier of deletion: a delete_memory span, the Erasure's seq and id on it.
  eraseContent: {
    name: 'erase_content',
    genAi: MemoryOperation.delete,
    command: true,
    before: ([input]) => targetsOf(input),
    after: (result, span) => written(field(result, 'erasure'), span),
  },
  deleteAndErase: {
    name: 'delete_and_erase',
    genAi: MemoryOperation.delete,
    command: true,
    before: ([input]) => targetsOf(input),
    after: (result, span) => written(field(result, 'erasure'), span),
  },
  search: {
    name: 'search',
    genAi: MemoryOperation.search,
    before: ([query], options) => queryOf(query, options),
    after: (result, span) => {
      if (Array.isArray(result)) span.setAttribute(GenAiAttr.recordCount, result.length);
    },
  },
  statePage: { name: 'state_page' },
  state: { name: 'state' },
  recallStats: { name: 'recall_stats' },
  getEvent: { name: 'get_event' },
  history: { name: 'history' },
  readEvents: { name: 'read_events' },
  catchUp: { name: 'catch_up' },
  rebuild: { name: 'rebuild' },
};
