import {
  deepFreeze,
  startFold,
  type Fold,
  type FoldView,
  type MemoryState,
  type Sequenced,
} from '../core/index.js';
import type { Projection } from './projection.js';

/**
 * Visible state and recall statistics: the core fold, kept current. Its `state()` is exactly what
 * `replay()` of the same events gives, because it is the same fold.
 */
export class MemoryStateProjection implements Projection {
  readonly name = 'memory-state';
  private fold: Fold = startFold();

  apply(event: Sequenced): void {
    this.fold.apply(event);
  }

  /** The fold's live structures, without copying (see `Fold.view`). */
  view(): FoldView {
    return this.fold.view();
  }

  /** The current state (frozen, shared until the next event). */
  state(): MemoryState {
    return this.fold.state();
  }

  snapshot(): MemoryState {
    return this.fold.state();
  }

  restore(snapshot: unknown): void {
    this.fold = startFold(deepFreeze(snapshot as MemoryState));
  }
}
