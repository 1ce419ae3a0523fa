import type { FactoryProvider } from '@nestjs/common';
import { openMemledger, type Memledger } from '../memory/index.js';
import { checkMemoryId } from '../store/memory-id.js';
import { openStore } from '../store/open-store.js';
import type { MemoryModuleOptions } from './memory-module.options.js';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition.js';
import { MEMLEDGER } from './memory.tokens.js';

/** Opens the store the options name and the memledger facade over it. */
export async function openMemledgerFromOptions(options: MemoryModuleOptions): Promise<Memledger> {
  // A bad default memory id fails the boot, not the first command.
  checkMemoryId(options.defaultMemoryId);
  const store = await openStore(options.store);
  return openMemledger({
    store,
    ...(options.readModels === undefined ? {} : { readModels: options.readModels }),
    ...(options.maxOpenMemories === undefined ? {} : { maxOpenMemories: options.maxOpenMemories }),
    ...(options.idleCloseMs === undefined ? {} : { idleCloseMs: options.idleCloseMs }),
    ...(options.retriever ? { retriever: options.retriever } : {}),
    ...(options.recallLimit === undefined ? {} : { recallLimit: options.recallLimit }),
    ...(options.defaults ? { defaults: options.defaults } : {}),
  });
}

/** Provides {@link MEMLEDGER} from the module options. */
export const memledgerProvider: FactoryProvider<Promise<Memledger>> = {
  provide: MEMLEDGER,
  inject: [MEMORY_MODULE_OPTIONS],
  useFactory: openMemledgerFromOptions,
};
