/**
 * memledger: an auditable, event-sourced memory for LLM agents.
 * The root entry: the pure core, the store port and the in-memory store.
 * Durable stores live in `memledger/sqlite` and `memledger/eventstoredb`.
 */
export * from './core/index.js';
export type * from './store/event-log.port.js';
export { openInMemoryStore } from './store/in-memory/in-memory.event-log.js';
export { encodeEvent, decodeEvent, type EncodedEvent, type EventType } from './store/codec.js';
export * from './memory/index.js';
// Embedding providers for semantic recall (docs/semantic-recall.md).
export * from './embeddings/index.js';
export type { Quantization, VersionProgress, VectorVersion } from './vectors/index.js';
// The verifiable log's identity: the key that signs checkpoints and the witnesses that cosign.
export {
  defaultLogName,
  generateSigner,
  loadKeyFile,
  logIdentityFromEnv,
  parseWitnessList,
  type LogIdentity,
  type NoteSigner,
  type WitnessEndpoint,
} from './tlog/index.js';
// OpenTelemetry instrumentation on @opentelemetry/api only (no-ops until an SDK is registered).
export {
  GenAiAttr,
  MemledgerAttr,
  MemoryOperation,
  MetricName,
  SpanName,
  type MemoryTelemetryOptions,
} from './telemetry/index.js';
export { traceMemledger, traceStore, untraced } from './memory/traced/index.js';
export {
  openReadModelFile,
  READ_MODEL_VERSION,
  type ReadModelDb,
  type RecallUse,
} from './read-models/index.js';
