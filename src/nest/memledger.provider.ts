import { Logger, type FactoryProvider } from '@nestjs/common';
import { openMemledger, type Memledger } from '../memory/index.js';
import type { MemoryStore } from '../store/event-log.port.js';
import { checkMemoryId } from '../store/memory-id.js';
import { openStore } from '../store/open-store.js';
import { traceMemledger, traceStore } from '../memory/traced/index.js';
import type { MemoryModuleOptions } from './memory-module.options.js';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition.js';
import { MEMLEDGER, MEMORY_STORE } from './memory.tokens.js';

/** Opens the store the options name and the memledger facade over it. */
export async function openMemledgerFromOptions(options: MemoryModuleOptions): Promise<Memledger> {
  return openMemledgerOver(await openStoreFromOptions(options), options);
}

/** Opens the store the options name; a bad default memory id fails the boot, not the first command. */
export async function openStoreFromOptions(options: MemoryModuleOptions): Promise<MemoryStore> {
  checkMemoryId(options.defaultMemoryId);
  return openStore(options.store);
}

/**
 * The memledger facade over `store`, traced: spans and metrics go through `@opentelemetry/api`
 * and cost next to nothing until the application registers an SDK. Closing it closes `store`.
 */
export function openMemledgerOver(store: MemoryStore, options: MemoryModuleOptions): Memledger {
  const memledger = openMemledger({
    store: traceStore(store),
    ...(options.readModels === undefined ? {} : { readModels: options.readModels }),
    ...(options.maxOpenMemories === undefined ? {} : { maxOpenMemories: options.maxOpenMemories }),
    ...(options.idleCloseMs === undefined ? {} : { idleCloseMs: options.idleCloseMs }),
    ...(options.retriever ? { retriever: options.retriever } : {}),
    ...(options.embeddings ? { embeddings: options.embeddings } : {}),
    ...(options.recallLimit === undefined ? {} : { recallLimit: options.recallLimit }),
    ...(options.recallRetries === undefined ? {} : { recallRetries: options.recallRetries }),
    ...(options.retrieverTimeoutMs === undefined
      ? {}
      : { retrieverTimeoutMs: options.retrieverTimeoutMs }),
    ...(options.defaults ? { defaults: options.defaults } : {}),
    ...(options.log ? { log: options.log } : {}),
    // Through Nest's logger, so the application's log format and redaction apply.
    onNotice: (notice) => new Logger('memledger').warn(notice),
  });
  return traceMemledger(memledger, options.telemetry);
}

/** Provides {@link MEMORY_STORE} from the module options. */
export const memoryStoreProvider: FactoryProvider<Promise<MemoryStore>> = {
  provide: MEMORY_STORE,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: openStoreFromOptions,
};

/** Provides {@link MEMLEDGER} over {@link MEMORY_STORE}. */
export const memledgerProvider: FactoryProvider<Memledger> = {
  provide: MEMLEDGER,
  inject: [MEMORY_STORE, MEMORY_MODULE_OPTIONS],
  useFactory: openMemledgerOver,
};
