/**
 * The signed checkpoints a log has given out, kept insert-only beside the log so that every
 * earlier one can be fetched again and each new one is checked against the last
 * (invariant 10, docs/architecture.md). It is a record, not derived data: no projection owns it and no rebuild drops
 * it. SQLite keeps it in a table of the store's file whose triggers refuse updates and deletes;
 * EventStoreDB in a companion stream per memory and origin; the in-memory store in memory.
 */

/** One memory's checkpoints under one origin (`<log name>/<memory id>`). */
export interface CheckpointSeries {
  readonly memoryId: string;
  readonly origin: string;
}

/** A signed checkpoint as kept. */
export interface ArchivedCheckpoint {
  readonly size: number;
  /** The 32-byte root at that size. */
  readonly root: Uint8Array;
  /** The signed note, with the witness cosignatures it had when it was kept. */
  readonly note: string;
  /** Where it sits in its series: what {@link CheckpointArchive.add} takes to append after it. */
  readonly position: number;
}

/** The insert-only record of a store's signed checkpoints. */
export interface CheckpointArchive {
  /** The checkpoint of `series` with the largest size, or undefined when there is none. */
  latest(series: CheckpointSeries): Promise<ArchivedCheckpoint | undefined>;
  /** The checkpoint of `series` at `size`, or undefined when none was kept at that size. */
  at(series: CheckpointSeries, size: number): Promise<ArchivedCheckpoint | undefined>;
  /**
   * Keeps a checkpoint larger than every other of its series, unless the series moved since
   * `after` (the latest the caller read, undefined for none): then it writes nothing and
   * resolves false, and the caller reads the latest again.
   */
  add(
    series: CheckpointSeries,
    checkpoint: Omit<ArchivedCheckpoint, 'position'>,
    after: ArchivedCheckpoint | undefined,
  ): Promise<boolean>;
}
