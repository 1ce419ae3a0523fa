/**
 * memledger core: the event model, factories, the replay fold, the append guard and search.
 * Pure: no framework, no database, no `node:*`, so the web page can run the same `replay()`.
 */
export * from './errors.js';
export * from './event-fields.js';
export * from './events.js';
export * from './retrieval-text.js';
export * from './versions.js';
export * from './factories.js';
export * from './limits.js';
export * from './state.js';
export * from './fold.js';
export * from './replay.js';
export * from './append-guard.js';
export * from './content-equality.js';
export * from './search.js';
export * from './fusion.js';
export { normalizeTimestamp } from './timestamp.js';
export {
  deepFreeze,
  isValidated,
  markValidated,
  parseOrThrow,
  requireObject,
  toValidationIssues,
} from './validate.js';
