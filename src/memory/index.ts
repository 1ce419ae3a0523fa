/** memledger without a framework: every command and query over one store. */
export * from './memledger.js';
export * from './memory-handle.js';
export * from './memory.types.js';
export { AUDIT_SCAN_EVENTS, DEFAULT_AUDIT_LIMIT } from './recall-audit.js';
export * from './retriever.js';
export * from './retention.js';
export { embeddingsOptionsFromEnv, type EmbeddingsOptions } from './semantic-options.js';
export type { SemanticSettings, VectorStatus } from './semantic-retrieval.js';
export * from './verifiable-log.js';
export type * from './verifiable-log.types.js';
export { pageOfState } from './state-page.js';
export type {
  CleanupBacklog,
  ErasureCleanup,
  ErasureCleanupStatus,
} from '../store/sealed/erasure-cleanup.js';
export {
  MAX_PAGE,
  STATE_PAGE_BYTES,
  type PageOptions,
  type RecallUse,
  type StatePage,
} from '../read-models/index.js';
