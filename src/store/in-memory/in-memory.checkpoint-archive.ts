/**
 * Signed checkpoints in process memory: the in-memory store's, gone with it (as its log is).
 */
import type {
  ArchivedCheckpoint,
  CheckpointArchive,
  CheckpointSeries,
} from '../checkpoint-archive.port.js';

/** An empty checkpoint archive in process memory. */
export function inMemoryCheckpointArchive(): CheckpointArchive {
  const series = new Map<string, ArchivedCheckpoint[]>();
  const of = (key: CheckpointSeries) => series.get(key.origin) ?? [];
  return {
    latest: async (key) => of(key).at(-1),
    at: async (key, size) => of(key).find((checkpoint) => checkpoint.size === size),
    async add(key, checkpoint, after) {
      const kept = of(key);
      const latest = kept.at(-1);
      if (latest?.position !== after?.position) return false;
      if (latest !== undefined && checkpoint.size <= latest.size) return false;
      series.set(key.origin, [...kept, { ...checkpoint, position: kept.length }]);
      return true;
    },
  };
}
