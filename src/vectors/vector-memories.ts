import type Database from 'better-sqlite3';
import { AssignedKeys } from '../db/transactions.js';
import type { ItemWindows } from './item-windows.js';

/**
 * The vectors' own keys of memories (`vec_memories`): the read models' keys may change when they
 * are rebuilt under a new layout, the vectors' rows (keyed `vmem * 2^40 + seq`) must not.
 */
export class VectorMemories {
  private readonly known: AssignedKeys<number, number>;
  private readonly find: Database.Statement<[string], number>;
  private readonly insert: Database.Statement<[string]>;

  constructor(
    db: Database.Database,
    private readonly windows: ItemWindows,
  ) {
    this.known = new AssignedKeys(db);
    this.find = db
      .prepare<[string], number>('SELECT vmem FROM vec_memories WHERE memory_id = ?')
      .pluck();
    this.insert = db.prepare<[string]>('INSERT OR IGNORE INTO vec_memories (memory_id) VALUES (?)');
  }

  /** The vectors' key of the read models' key `mem`; created when `create` (else undefined). */
  vmemOf(mem: number, create: boolean): number | undefined {
    return this.known.of(mem, () => {
      const memoryId = this.windows.memoryIdOf(mem);
      if (memoryId === undefined) return undefined;
      const vmem = this.find.get(memoryId);
      if (vmem !== undefined || !create) return vmem;
      this.insert.run(memoryId);
      return this.find.get(memoryId);
    });
  }
}
