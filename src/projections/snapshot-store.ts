/**
 * Where projection snapshots live, so a restart resumes from a checkpoint instead of folding
 * from zero. Snapshots are derived data, never the record: losing one costs only a rebuild, and
 * one that does not match the log (verified by the id of the event at its checkpoint) is ignored.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The read models of one memory as they stood right after `checkpoint`. */
export interface ProjectionSnapshot {
  readonly format: 1;
  readonly memoryId: string;
  readonly checkpoint: number;
  /** Id of the event at `checkpoint`: a snapshot whose id the log does not hold there is stale. */
  readonly lastEventId: string;
  readonly projections: Readonly<Record<string, unknown>>;
}

/** Keeps the latest snapshot per memory. */
export interface SnapshotStore {
  load(memoryId: string): Promise<ProjectionSnapshot | undefined>;
  save(snapshot: ProjectionSnapshot): Promise<void>;
}

/** Snapshots kept in this process only (tests, ephemeral runs). */
export function openInMemorySnapshotStore(): SnapshotStore {
  const saved = new Map<string, string>();
  return {
    async load(memoryId) {
      const json = saved.get(memoryId);
      return json === undefined ? undefined : (JSON.parse(json) as ProjectionSnapshot);
    },
    async save(snapshot) {
      saved.set(snapshot.memoryId, JSON.stringify(snapshot));
    },
  };
}

/**
 * Snapshots as JSON files in `dir`, one per memory, replaced atomically (write then rename), so a
 * crash mid-write leaves the previous snapshot intact.
 */
export function openFileSnapshotStore(dir: string): SnapshotStore {
  mkdirSync(dir, { recursive: true });
  const fileOf = (memoryId: string) => join(dir, `memory-${memoryId}.snapshot.json`);
  return {
    async load(memoryId) {
      try {
        const parsed = JSON.parse(readFileSync(fileOf(memoryId), 'utf8')) as ProjectionSnapshot;
        return parsed.format === 1 && parsed.memoryId === memoryId ? parsed : undefined;
      } catch {
        // Missing or unreadable: rebuilding from the log is always correct.
        return undefined;
      }
    },
    async save(snapshot) {
      const file = fileOf(snapshot.memoryId);
      writeFileSync(`${file}.tmp`, JSON.stringify(snapshot));
      renameSync(`${file}.tmp`, file);
    },
  };
}
