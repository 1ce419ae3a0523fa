import { Logger } from '@nestjs/common';
import { EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import type { EventKind } from '../../src/core/index.js';
import { MemoryEventApplied } from '../../src/nest.js';

/**
 * The backend's own reaction to memory events: counts them by kind and logs deletions. A
 * reaction, not a read model: read models come from MemoryModule's checkpointed projections.
 */
@EventsHandler(MemoryEventApplied)
export class MemoryActivity implements IEventHandler<MemoryEventApplied> {
  private readonly logger = new Logger('MemoryActivity');
  /** Applied events seen so far, by kind. */
  readonly counts: Record<EventKind, number> = {
    message: 0,
    document: 0,
    recall: 0,
    deletion: 0,
    erasure: 0,
  };

  /** Called by the Nest EventBus for every event MemoryModule's read models apply. */
  handle({ memoryId, event }: MemoryEventApplied): void {
    this.counts[event.kind]++;
    if (event.kind === 'deletion')
      this.logger.log(`${memoryId}: deleted ${event.targets.join(', ')} (${event.reason})`);
  }
}
