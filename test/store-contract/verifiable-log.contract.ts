import { openMemledger, type Memledger } from '../../src/memory/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { generateSigner, type LogIdentity } from '../../src/tlog/index.js';
import {
  SIGNATURE_TYPE,
  parseConsistencyProof,
  parseInclusionProof,
  parseVerifierKey,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
  type Checkpoint,
} from '../../src/verify/index.js';
import { leafInputs } from '../projections/tree-drive.js';
import type { ContractContext } from './index.js';
import { itNotApplicable } from './harness.js';

const signer = generateSigner('contract.test');
const log: LogIdentity = { name: signer.name, signer, witnesses: [] };

/**
 * Runs `work` with memledger over `store` (left open for the contract to close), signing its
 * checkpoints with the contract's key.
 */
async function withMemledger(store: MemoryStore, work: (memledger: Memledger) => Promise<void>) {
  const memledger = openMemledger({ store, log, closeStore: false, onNotice: () => undefined });
  try {
    await work(memledger);
  } finally {
    await memledger.close();
  }
}

/** A signed note, checked by memledger/verify under the contract key and the memory's origin. */
async function verified(note: string, memoryId: string): Promise<Checkpoint> {
  const key = await parseVerifierKey(signer.vkey, SIGNATURE_TYPE.ed25519);
  return verifyCheckpoint(note, { log: key, origin: `contract.test/${memoryId}` });
}

/**
 * Invariant 10 (the log is verifiable) on the adapter: the tree a memory's checkpoints sign is
 * the tree of the events the store holds, and checkpoints only ever extend one another.
 */
export function describeVerifiableLogContract(ctx: ContractContext): void {
  describe('verifying the log', () => {
    it('invariant 10 — event seq i is leaf i: every inclusion proof verifies against the signed checkpoint with the leaf of the stored event', async () => {
      await withMemledger(ctx.store(), async (memledger) => {
        const memory = await memledger.memory('proven');
        const said = await memory.recordMessage({ speaker: 'user', content: 'Zoë likes tea ☕' });
        await memory.addDocument({ name: 'notes.md', text: 'tea notes' });
        await memory.recall({ query: 'tea', limit: 2 });
        await memory.deleteContent({ targets: [said.id], reason: 'asked to forget' });
        const checkpoint = await verified((await memory.checkpoint()).note, 'proven');
        const stored = await leafInputs(ctx.store().log('proven'));
        expect(checkpoint.size).toBe(4);
        expect(stored).toHaveLength(4);
        for (const expected of stored) {
          const proof = parseInclusionProof(await memory.proveInclusion(expected.seq));
          await expect(verifyLeafInclusion(proof, checkpoint, expected)).resolves.toMatchObject({
            seq: expected.seq,
            id: expected.id,
          });
        }
      });
    });

    it('invariant 10 — a signed checkpoint is never inconsistent with an earlier one: each earlier one is proven a prefix of the next', async () => {
      await withMemledger(ctx.store(), async (memledger) => {
        const memory = await memledger.memory('grows');
        const checkpoints: Checkpoint[] = [];
        for (let round = 0; round < 3; round++) {
          const said = await memory.recordMessage({ speaker: 'user', content: `round ${round}` });
          await memory.recordMessage({ speaker: 'assistant', content: `answer ${round}` });
          if (round === 1) await memory.deleteContent({ targets: [said.id], reason: 'retracted' });
          checkpoints.push(await verified((await memory.checkpoint()).note, 'grows'));
        }
        expect(checkpoints.map((c) => c.size)).toEqual([2, 5, 7]);
        for (const [i, older] of checkpoints.entries())
          for (const newer of checkpoints.slice(i + 1)) {
            const proof = parseConsistencyProof(
              await memory.proveConsistency(older.size, newer.size),
            );
            await expect(verifyCheckpointConsistency(older, newer, proof)).resolves.toBeUndefined();
          }
      });
    });

    if (ctx.harness.reopen) {
      it('invariant 10 — checkpoints survive reopening: the earlier note is served again and the next one extends it', async () => {
        let first = '';
        await withMemledger(ctx.store(), async (memledger) => {
          const memory = await memledger.memory('kept');
          for (let i = 0; i < 3; i++)
            await memory.recordMessage({ speaker: 'user', content: `${i}` });
          first = (await memory.checkpoint()).note;
        });
        ctx.replaceStore(await ctx.harness.reopen!(ctx.store()));
        await withMemledger(ctx.store(), async (memledger) => {
          const again = await memledger.memory('kept');
          expect((await again.checkpoint({ size: 3 })).note).toBe(first);
          await again.recordMessage({ speaker: 'user', content: 'after the reopen' });
          const older = await verified(first, 'kept');
          const newer = await verified((await again.checkpoint()).note, 'kept');
          const proof = parseConsistencyProof(await again.proveConsistency(3, 4));
          await expect(verifyCheckpointConsistency(older, newer, proof)).resolves.toBeUndefined();
        });
      });
    } else {
      itNotApplicable(
        'invariant 10 — checkpoints survive reopening',
        'the adapter keeps nothing across a reopen',
      );
    }
  });
}
