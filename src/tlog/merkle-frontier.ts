/**
 * The root of a growing list of leaf hashes in O(log n) memory: the right frontier of the tree
 * (the perfect subtrees the size decomposes into, largest first), merged as each one completes.
 * A verifier streaming a whole log through it gets the root at any size as it passes it,
 * without holding the log or the tree.
 */
import { emptyTreeRoot, nodeHashOf } from './tree-hash.js';

/** Leaf hashes pushed in order; the root of those pushed so far on demand. */
export class MerkleFrontier {
  private readonly stack: { level: number; hash: Buffer }[] = [];
  private count = 0;

  /** How many leaves were pushed. */
  get size(): number {
    return this.count;
  }

  /** Adds the next leaf's hash. */
  push(leafHash: Buffer): void {
    let top = { level: 0, hash: leafHash };
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level === top.level) {
      const left = this.stack.pop()!;
      top = { level: top.level + 1, hash: nodeHashOf(left.hash, top.hash) };
    }
    this.stack.push(top);
    this.count++;
  }

  /** The RFC 9162 root of the leaves pushed so far (`SHA-256()` for none). */
  root(): Buffer {
    if (this.stack.length === 0) return emptyTreeRoot();
    let root = this.stack[this.stack.length - 1]!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) root = nodeHashOf(this.stack[i]!.hash, root);
    return root;
  }
}
