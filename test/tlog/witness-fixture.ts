/**
 * A log for witness and monitor tests: a real tree of leaf hashes, a log key that signs its
 * checkpoints with the production signer, and a forked copy (history rewritten at one leaf)
 * signed with the same key — what an operator who rewrote the log could publish.
 */
import { signCheckpoint } from '../../src/tlog/checkpoint-signing.js';
import { InMemoryTree } from '../../src/tlog/in-memory-tree.js';
import { generateSigner, type NoteSigner } from '../../src/tlog/note-signer.js';
import { formatAddCheckpointBody } from '../../src/tlog/witness/add-checkpoint-body.js';
import { sampleLeafHashes } from '../verify/reference-merkle.js';

/** A log with its key, origin and the tree of its first `size` leaves. */
export class TestLog {
  readonly tree = new InMemoryTree();

  constructor(
    readonly key: NoteSigner,
    readonly origin: string,
    leaves: readonly Buffer[],
  ) {
    this.tree.append(...leaves);
  }

  /** The log-signed note of the checkpoint at `size`. */
  note(size: number): string {
    return signCheckpoint(this.key, {
      origin: this.origin,
      head: { size, root: this.tree.root(size) },
      last: null,
      proof: [],
    });
  }

  /** An add-checkpoint body from `oldSize` to `size`. */
  body(oldSize: number, size: number): string {
    const proof = oldSize === 0 ? [] : this.tree.consistencyPath(oldSize, size);
    return formatAddCheckpointBody({ oldSize, proof, note: this.note(size) });
  }
}

/** A log of 100 leaves under key name `name`, and its fork rewritten at leaf `forkAt`. */
export function testLogs(
  name = 'log.example',
  memory = 'default',
  forkAt = 10,
): { log: TestLog; forked: TestLog } {
  const key = generateSigner(name);
  const leaves = sampleLeafHashes(100, `${name}/${memory}`);
  const rewritten = leaves.map((hash, i) =>
    i === forkAt ? sampleLeafHashes(1, 'forged')[0]! : hash,
  );
  return {
    log: new TestLog(key, `${name}/${memory}`, leaves),
    forked: new TestLog(key, `${name}/${memory}`, rewritten),
  };
}
