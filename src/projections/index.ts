/**
 * Derived data behind one port (src/store/projection.port.ts): the runtime that keeps a file's
 * projections current from the log, inline with appends or by catch-up.
 */
export { openProjectionRuntime } from './projection-runtime.js';
export { CATCH_UP_CHUNK } from './projection-steps.js';
export type {
  AdvanceOptions,
  InlineSource,
  LayoutBuildProgress,
  Progress,
  ProjectionRuntime,
} from './projection-runtime.types.js';
export type { AppliedListener } from './applied-listeners.js';
