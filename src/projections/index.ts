/**
 * Derived data behind one port (src/store/projection.port.ts): the runtime that keeps a file's
 * projections current from the log, inline with appends or by catch-up.
 */
export { openProjectionRuntime, type ProjectionRuntime } from './projection-runtime.js';
