/**
 * Requests being served, so a shutdown can let them finish (an append under way is answered)
 * after the server stopped accepting new ones.
 */
import { Injectable } from '@nestjs/common';

/** Counts requests from their first middleware to their response's end. */
@Injectable()
export class InFlightRequests {
  /** Set once a shutdown began: readiness answers 503 so balancers stop sending requests. */
  draining = false;
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** Requests being served now. */
  get size(): number {
    return this.count;
  }

  /** A request started; call the returned function once when it ends. */
  start(): () => void {
    this.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count--;
      if (this.count === 0) for (const wake of this.waiters) wake();
    };
  }

  /** Resolves when no request is being served. */
  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
    });
  }
}
