/**
 * The memledger bounded context for a NestJS CQRS backend: import
 * `MemoryModule.forRoot({ store })` and send commands and queries on the buses. Handlers are
 * thin calls into the framework-free facade; the read models are its checkpointed projections.
 */
import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { Memledger } from '../memory/index.js';
import { MEMORY_COMMAND_HANDLERS } from './commands/index.js';
import { memledgerProvider, memoryStoreProvider } from './memledger.provider.js';
import { MemoryEventBusBridge } from './memory-event-bus.bridge.js';
import { MemoryEvents } from './memory-events.service.js';
import { MemoryHandles } from './memory-handles.js';
import { MemoryRetention } from './memory-retention.js';
import { ConfigurableModuleClass } from './memory.module-definition.js';
import { MEMLEDGER, MEMORY_STORE } from './memory.tokens.js';
import { MEMORY_QUERY_HANDLERS } from './queries/index.js';

/**
 * Provides the `MEMLEDGER` facade, every command and query handler, `MemoryEvents`, the
 * `EventBus` bridge (`MemoryEventApplied`) and the opt-in retention sweeper; closes the
 * memledger (projections, then the store) when the application shuts down.
 */
@Module({
  imports: [CqrsModule.forRoot()],
  providers: [
    memoryStoreProvider,
    memledgerProvider,
    MemoryHandles,
    MemoryEvents,
    MemoryEventBusBridge,
    MemoryRetention,
    ...MEMORY_COMMAND_HANDLERS,
    ...MEMORY_QUERY_HANDLERS,
  ],
  exports: [MEMLEDGER, MEMORY_STORE, MemoryEvents, MemoryHandles],
})
export class MemoryModule extends ConfigurableModuleClass implements OnApplicationShutdown {
  private closing: Promise<void> | undefined;

  constructor(@Inject(MEMLEDGER) private readonly memledger: Memledger) {
    super();
  }

  /** Stops the read models' followers and closes the store, once. */
  onApplicationShutdown(): Promise<void> {
    this.closing ??= this.memledger.close();
    return this.closing;
  }
}
