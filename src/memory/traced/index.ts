/**
 * The facade and the store, traced: spans and metrics around each operation through
 * `@opentelemetry/api` (no-ops until an application registers an SDK), and the read models' lag
 * for the application's gauges.
 */
export { traceMemledger, untraced } from './traced-memledger.js';
export { storeKindOf, traceStore } from './traced-store.js';
export { readModelLag, type ReadModelLag } from './read-model-lag.js';
