import type { Sequenced } from '../core/index.js';

/**
 * A read model fed one event at a time by the projection runner. It applies each event exactly
 * once, in seq order, and can hand out and take back a JSON-safe snapshot of itself so a restart
 * resumes from its checkpoint instead of from zero.
 */
export interface Projection {
  /** Stable name, used as the snapshot key. */
  readonly name: string;
  /** Applies the next event of the log. */
  apply(event: Sequenced): void;
  /** A JSON-safe copy of the read model. */
  snapshot(): unknown;
  /** Replaces the read model with a snapshot taken by {@link snapshot}. */
  restore(snapshot: unknown): void;
}
