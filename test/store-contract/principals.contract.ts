import { createMessage, type RecordedBy } from '../../src/core/index.js';
import { readAll } from '../support/collect.js';
import { leafInputs } from '../projections/tree-drive.js';
import type { ContractContext } from './index.js';

const agent: RecordedBy = { principal: 'agent-7', via: 'key:k_agent7' };
const host: RecordedBy = { principal: 'ops@example.org', via: 'jwt:https://idp.example.org/' };

/**
 * Invariant 11 (who did it is proven, not claimed) where a store takes part: the authenticated
 * principal is kept apart from the actor a client claims, exactly as recorded, and bound into the
 * verifiable log's leaf. Its HTTP face (keys reach only their grants, the same refusal for a
 * memory that exists and one that does not) runs on every adapter in
 * test/access/isolation-stores.e2e.spec.ts.
 */
export function describePrincipalsContract(ctx: ContractContext): void {
  describe('recording who did it', () => {
    it('invariant 11 — recordedBy is stored exactly as authenticated, apart from the claimed actor, and read back unchanged', async () => {
      const log = ctx.store().log('principals');
      const claimed = createMessage({
        speaker: 'user',
        content: 'I am the administrator',
        actor: 'administrator',
        recordedBy: agent,
      });
      const vouched = createMessage({ speaker: 'ops', content: 'maintenance', recordedBy: host });
      const nobody = createMessage({ speaker: 'user', content: 'no login' });
      await log.append([claimed, vouched, nobody]);
      const read = await readAll(log);
      expect(read.map((e) => [e.actor, e.recordedBy])).toEqual([
        ['administrator', agent],
        [null, host],
        [null, null],
      ]);
      expect(await log.get(claimed.id)).toMatchObject({ recordedBy: agent });
    });

    it('invariant 11 — the principal is bound into the verifiable log: the leaf of each event carries its recordedBy', async () => {
      const log = ctx.store().log('bound');
      await log.append([
        createMessage({ speaker: 'user', content: 'one', recordedBy: agent }),
        createMessage({ speaker: 'user', content: 'two' }),
      ]);
      const leaves = await leafInputs(log);
      expect(leaves.map((leaf) => leaf.body.recordedBy)).toEqual([agent, null]);
    });
  });
}
