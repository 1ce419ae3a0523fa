import type { Observable } from 'rxjs';
import type { Sequenced } from '../core/index.js';
import { rx } from '../read-models/index.js';
import type { EventLog } from '../store/event-log.port.js';

/**
 * A cold observable over a memory's log: replays from `fromSeq`, then goes live. Each subscriber
 * gets its own catch-up subscription; unsubscribing ends it.
 */
export function eventsFrom(log: EventLog, fromSeq: number): Observable<Sequenced> {
  return new (rx().Observable<Sequenced>)((subscriber) => {
    const controller = new AbortController();
    void (async () => {
      try {
        for await (const event of log.subscribe({ fromSeq, signal: controller.signal }))
          subscriber.next(event);
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      }
    })();
    return () => controller.abort();
  });
}
