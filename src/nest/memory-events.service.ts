import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { defer, Subject, switchMap, type Observable, type Subscription } from 'rxjs';
import type { Sequenced } from '../core/index.js';
import type { Memledger } from '../memory/index.js';
import { MemoryEventApplied } from './events/memory-event-applied.event.js';
import { MemoryHandles } from './memory-handles.js';
import { MEMLEDGER } from './memory.tokens.js';

/** Observables over memories: one memory's log from any seq, and every applied event. */
@Injectable()
export class MemoryEvents implements OnModuleInit, OnModuleDestroy {
  private readonly applied = new Subject<MemoryEventApplied>();
  private readonly subscriptions: Subscription[] = [];
  private stopListening: (() => void) | undefined;

  constructor(
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
    @Inject(MemoryHandles) private readonly memories: MemoryHandles,
  ) {}

  /** Every event the read models of any memory apply (live only), as it is applied. */
  get applied$(): Observable<MemoryEventApplied> {
    return this.applied.asObservable();
  }

  /**
   * One memory's events from `fromSeq` (replayed from the log), then each new one as it is
   * appended: each once, in seq order. Cold: every subscriber gets its own subscription.
   */
  changes$(memoryId: string, options: { readonly fromSeq?: number } = {}): Observable<Sequenced> {
    return defer(() => this.memories.get(memoryId)).pipe(
      switchMap((memory) => memory.changes(options)),
    );
  }

  /** Follows each memory's read models as they start. */
  onModuleInit(): void {
    this.stopListening = this.memledger.onMemoryOpened((memory) => {
      this.subscriptions.push(
        memory.applied$.subscribe((event) =>
          this.applied.next(new MemoryEventApplied(memory.memoryId, event)),
        ),
      );
    });
  }

  /** Stops following and completes `applied$`. */
  onModuleDestroy(): void {
    this.stopListening?.();
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    this.applied.complete();
  }
}
