/** memledger without a framework: every command and query over one store. */
export * from './memledger.js';
export * from './memory-handle.js';
export * from './memory.types.js';
export * from './retriever.js';
export * from './retention.js';
export { pageAsOf, pageOfState, MAX_PAGE, type PageOptions } from './state-page.js';
