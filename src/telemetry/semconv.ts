/**
 * The names memledger's spans and metrics use. Memory operations follow the OpenTelemetry GenAI
 * memory conventions (`gen_ai.memory.client` spans: name = `gen_ai.operation.name`, one of
 * `search_memory`, `create_memory`, `delete_memory`, ...; attributes `gen_ai.memory.*`). What
 * those conventions do not cover (seqs, the Recall's id, the recalled ids, deletion targets,
 * store calls) is named under `memledger.*`. docs/operations.md lists them all.
 */

/** `gen_ai.operation.name` values of the GenAI memory conventions that memledger emits. */
export const MemoryOperation = {
  /** A recall (auditable or recorded) and the inspection search. */
  search: 'search_memory',
  /** A message or a document written. */
  create: 'create_memory',
  /** A Deletion (and an Erasure). */
  delete: 'delete_memory',
} as const;

/** The GenAI attribute keys memledger sets. */
export const GenAiAttr = {
  operationName: 'gen_ai.operation.name',
  /** The memledger memory id: a memory is the conventions' memory store. */
  storeId: 'gen_ai.memory.store.id',
  /** Set when the operation concerns exactly one record (the event written, a single target). */
  recordId: 'gen_ai.memory.record.id',
  /** Records returned by a recall, or targeted by a deletion. */
  recordCount: 'gen_ai.memory.record.count',
  /** Opt-in (`captureQueries`): the query text of a recall or search. Never content. */
  queryText: 'gen_ai.memory.query.text',
  toolName: 'gen_ai.tool.name',
} as const;

/** Attribute keys of memledger's own. */
export const MemledgerAttr = {
  /** The facade method: `recall`, `record_recall`, `record_message`, `delete_content`, ... */
  operation: 'memledger.operation',
  /** Seq of the event the operation wrote (the Recall's seq for a recall). */
  eventSeq: 'memledger.event.seq',
  /** Id of the event the operation wrote (the Recall's id for a recall). */
  eventId: 'memledger.event.id',
  /** Kind of the event written: message, document, recall, deletion, erasure. */
  eventKind: 'memledger.event.kind',
  /** Ids a Recall put in the context, in its order. */
  recalledIds: 'memledger.recall.recalled_ids',
  /** Ids a Deletion targets. */
  deletionTargets: 'memledger.deletion.targets',
  /** The store adapter: `in-memory`, `sqlite`, `eventstoredb`, or `other`. */
  store: 'memledger.store',
  /** The adapter method of an append other than `append` (e.g. one computed under a lock). */
  appendMethod: 'memledger.append.method',
  /** Events in one store append. */
  appendEvents: 'memledger.append.events',
  /** Events one store read returned. */
  readEvents: 'memledger.read.events',
  /** Seq a read or a catch-up starts from. */
  fromSeq: 'memledger.read.from_seq',
  /** The read models' checkpoint after a catch-up. */
  checkpoint: 'memledger.read_models.checkpoint',
  /** A rejection's error code (also `error.type`). */
  errorCode: 'memledger.error.code',
  /** The embedding model of a vector index version. */
  vectorsModel: 'memledger.vectors.model',
  /** Its dimensions. */
  vectorsDimensions: 'memledger.vectors.dimensions',
  /** How it stores vectors: none (float32), int8 or binary. */
  vectorsQuantization: 'memledger.vectors.quantization',
  /** Whether it is the version recalls use now (a new model's is built beside the old one). */
  vectorsCurrent: 'memledger.vectors.current',
  /** A projection's name on the runtime (`read-models`, `search`, `tree`, ...). */
  projection: 'memledger.projection',
  /** The layout version of a projection being built beside the serving one. */
  projectionLayout: 'memledger.projection.layout',
} as const;

/** Span names of the store calls and read-model work under a memory operation. */
export const SpanName = {
  append: 'memledger.store.append',
  read: 'memledger.store.read',
  get: 'memledger.store.get',
  lastSeq: 'memledger.store.last_seq',
  catchUp: 'memledger.read_models.catch_up',
} as const;

/** Metric names (Prometheus turns the dots into underscores and adds unit suffixes). */
export const MetricName = {
  appendDuration: 'memledger.store.append.duration',
  appendSize: 'memledger.store.append.size',
  eventsAppended: 'memledger.events.appended',
  recallDuration: 'memledger.recall.duration',
  recallHits: 'memledger.recall.hits',
  rejected: 'memledger.commands.rejected',
  lagEvents: 'memledger.read_model.lag.events',
  lagSeconds: 'memledger.read_model.lag.seconds',
  openMemories: 'memledger.memories.open',
  erasureCleanupPending: 'memledger.erasure.cleanup.pending',
  erasureCleanupSeconds: 'memledger.erasure.cleanup.pending.seconds',
  vectorsBehind: 'memledger.vectors.behind',
  vectorsMemoriesReady: 'memledger.vectors.memories.ready',
  vectorsMemories: 'memledger.vectors.memories',
  layoutBuildBehind: 'memledger.projection.layout.behind',
  sseClients: 'memledger.sse.clients',
} as const;

/** The instrumentation scope of every span and metric. */
export const SCOPE = 'memledger';
