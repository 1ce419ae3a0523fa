/**
 * A Merkle tree held in process memory as rows (tree-rows.ts): for tests, tools and the
 * in-memory store. The durable stores keep the same rows in their own tables.
 */
import { MemoryError } from '../core/index.js';
import { consistencyPath, inclusionPath, treeRoot, type SubtreeSource } from './subtrees.js';
import { appendRows, rowSubtrees } from './tree-rows.js';

/** A growing tree of leaf hashes. */
export class InMemoryTree implements SubtreeSource {
  private readonly rows: Buffer[] = [];
  private readonly source = rowSubtrees((leaf) => this.rows[leaf]);

  /** How many leaves the tree holds. */
  get size(): number {
    return this.rows.length;
  }

  /** Appends leaves by their hashes; returns the rows written. */
  append(...leafHashes: Buffer[]): Buffer[] {
    const rows = appendRows(this.rows.length, leafHashes, this.source);
    this.rows.push(...rows);
    return rows;
  }

  /** The row of leaf `index`. */
  row(index: number): Buffer | undefined {
    return this.rows[index];
  }

  /** {@inheritDoc SubtreeSource.node} */
  node(level: number, index: number): Buffer {
    return this.source.node(level, index);
  }

  /** The root at `size` (the current size by default). */
  root(size: number = this.size): Buffer {
    this.checkSize(size);
    return treeRoot(this.source, size);
  }

  /** The inclusion path of leaf `index` at `size`. */
  inclusionPath(index: number, size: number = this.size): Buffer[] {
    this.checkSize(size);
    return inclusionPath(this.source, index, size);
  }

  /** The consistency path from `from` to `to`. */
  consistencyPath(from: number, to: number = this.size): Buffer[] {
    this.checkSize(to);
    return consistencyPath(this.source, from, to);
  }

  private checkSize(size: number): void {
    if (size > this.rows.length) {
      throw new MemoryError(
        'VALIDATION_FAILED',
        `The tree has ${this.rows.length} leaves; size ${size} is past its head.`,
        { details: { size }, issues: [{ path: 'size', message: 'must not exceed the tree size' }] },
      );
    }
  }
}
