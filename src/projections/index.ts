/** Read models fed by catch-up subscriptions: visible state and recall stats, search, id index. */
export * from './projection.js';
export * from './memory-state.projection.js';
export * from './search.projection.js';
export * from './item-index.projection.js';
export * from './snapshot-store.js';
export * from './projection-runner.js';
