/**
 * `memledger/nest`: the NestJS bounded context. `MemoryModule.forRoot({ store })` (or
 * `forRootAsync`) gives CQRS commands and queries over the memledger facade, `MemoryEvents`
 * observables, and `MemoryEventApplied` on the Nest `EventBus`.
 */
export { MemoryModule } from './nest/memory.module.js';
export {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  MEMORY_MODULE_OPTIONS,
  OPTIONS_TYPE,
  type MemoryModuleOptions,
  type MemoryRetentionOptions,
} from './nest/memory.module-definition.js';
export { MEMLEDGER, MEMORY_STORE } from './nest/memory.tokens.js';
export { MemoryEvents } from './nest/memory-events.service.js';
export { MemoryHandles } from './nest/memory-handles.js';
export { MemoryEventApplied } from './nest/events/memory-event-applied.event.js';
export { MAX_READ_LIMIT, DEFAULT_READ_LIMIT } from './nest/input.js';
export * from './nest/commands/index.js';
export * from './nest/queries/index.js';
