import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import type { Subscription } from 'rxjs';
import { MemoryEvents } from './memory-events.service.js';

/** Publishes each `MemoryEventApplied` on the Nest `EventBus`, for `@EventsHandler`s and sagas. */
@Injectable()
export class MemoryEventBusBridge implements OnModuleInit, OnModuleDestroy {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(MemoryEvents) private readonly events: MemoryEvents,
    @Inject(EventBus) private readonly eventBus: EventBus,
  ) {}

  /** Starts publishing. */
  onModuleInit(): void {
    this.subscription = this.events.applied$.subscribe((applied) => {
      this.eventBus.publish(applied);
    });
  }

  /** Stops publishing. */
  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
