/** DI tokens of the memledger Nest module. */

/** The `Memledger` facade instance the module opened (every memory of its store). */
export const MEMLEDGER = Symbol('MEMLEDGER');
