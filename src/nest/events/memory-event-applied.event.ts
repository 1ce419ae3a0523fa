import type { IEvent } from '@nestjs/cqrs';
import type { Sequenced } from '../../core/index.js';

/**
 * Published on the Nest `EventBus` (and on `MemoryEvents.applied$`) for every event a memory's
 * read models apply, whoever appended it. For reactions, never for read models: those come from
 * checkpointed catch-up subscriptions.
 */
export class MemoryEventApplied implements IEvent {
  constructor(
    /** The memory the event belongs to. */
    readonly memoryId: string,
    /** The applied event, with its seq. */
    readonly event: Sequenced,
  ) {}
}
