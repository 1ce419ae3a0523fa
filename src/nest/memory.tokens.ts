/** DI tokens of the memledger Nest module. */

/** The `Memledger` facade instance the module opened (every memory of its store). */
export const MEMLEDGER = Symbol('MEMLEDGER');

/**
 * The module's store, untraced, for operations that must not trace themselves (health checks,
 * the read-model lag gauge). Commands and queries go through {@link MEMLEDGER}.
 */
export const MEMORY_STORE = Symbol('MEMORY_STORE');
