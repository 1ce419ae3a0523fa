/**
 * Access: who a credential belongs to, what they were granted, and the pure decision
 * `authorize(principal, memoryId, right)`. The application's surfaces (HTTP, the event stream,
 * MCP, the command line, the page) enforce it; the events record the principal as `recordedBy`.
 */
export * from './access-key.js';
export * from './authenticator.js';
export * from './grant-store.port.js';
export * from './jwt-verifier.js';
export * from './memory-pattern.js';
export * from './open-grant-store.js';
export * from './principal.js';
export * from './rights.js';
export { openSqliteGrantStore, type SqliteGrantStoreOptions } from './sqlite.grant-store.js';
