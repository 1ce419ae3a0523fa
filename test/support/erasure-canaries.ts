/**
 * Canary logs for the erasure specs: random operations (writes, recalls, deletions, erasures,
 * delete-and-erase) run against a memory, each content item carrying canaries of its own, and a
 * scan of any value for the canaries of the items that were erased.
 */
import fc from 'fast-check';
import type { Sequenced } from '../../src/core/index.js';
import type { MemoryHandle } from '../../src/memory/index.js';
import { canary } from './erasure-stores.js';

/** One abstract step; `pick` chooses among the items the step can act on. */
export type CanaryOp =
  | { readonly op: 'message' | 'document' }
  | { readonly op: 'recall' | 'delete' | 'erase' | 'deleteAndErase'; readonly pick: number };

/** Operation lists that favour writes, so deletions and erasures have something to act on. */
export const canaryOpsArbitrary = (maxLength = 24): fc.Arbitrary<CanaryOp[]> => {
  const pick = fc.nat({ max: 1000 });
  return (
    fc
      .array(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant({ op: 'message' as const }) },
          { weight: 2, arbitrary: fc.constant({ op: 'document' as const }) },
          { weight: 1, arbitrary: pick.map((p) => ({ op: 'recall' as const, pick: p })) },
          { weight: 2, arbitrary: pick.map((p) => ({ op: 'delete' as const, pick: p })) },
          { weight: 2, arbitrary: pick.map((p) => ({ op: 'erase' as const, pick: p })) },
          { weight: 1, arbitrary: pick.map((p) => ({ op: 'deleteAndErase' as const, pick: p })) },
        ),
        { minLength: 1, maxLength },
      )
      // Every log ends by deleting and erasing something, so no run is vacuous (fast-check starts
      // with very short lists, and a handful of runs could otherwise erase nothing at all).
      .map((ops): CanaryOp[] => [...ops, { op: 'message' }, { op: 'deleteAndErase', pick: 0 }])
  );
};

/** What a canary run wrote: the canaries of erased and of live (never deleted) items. */
export interface CanaryLog {
  /** Canaries of erased items (every one must be gone from every read). */
  readonly erased: Set<string>;
  /** Canaries of items still visible (reads must show them: the scan can find things). */
  readonly live: Map<string, string>;
  /** Every content id written, and the seq of the last event. */
  readonly ids: string[];
  readonly lastSeq: number;
}

/** Words every item shares, so a recall or a search over them reaches erased items too. */
export const SHARED_WORD = 'ledger';

/** Runs `ops` against `memory`: erasures only of deleted, not yet erased content. */
export async function runCanaryOps(
  memory: MemoryHandle,
  ops: readonly CanaryOp[],
): Promise<CanaryLog> {
  const canaries = new Map<string, string[]>();
  const visible: string[] = [];
  const deleted: string[] = [];
  const erased = new Set<string>();
  const ids: string[] = [];
  let lastSeq = -1;
  const note = (event: Sequenced) => (lastSeq = Math.max(lastSeq, event.seq));
  const take = (list: string[], pick: number) => list.splice(pick % list.length, 1)[0]!;
  const erase = (id: string) => canaries.get(id)!.forEach((c) => erased.add(c));

  for (const step of ops) {
    if (step.op === 'message') {
      const word = canary();
      const m = await memory.recordMessage({
        speaker: 'user',
        content: `${SHARED_WORD} note ${word} alpha`,
      });
      canaries.set(m.id, [word]);
      visible.push(m.id);
      ids.push(m.id);
      note(m);
    } else if (step.op === 'document') {
      const [name, text] = [canary(), canary()];
      const d = await memory.addDocument({
        name: `${name}.md`,
        text: `${SHARED_WORD} runbook ${text} alpha`,
      });
      canaries.set(d.id, [name, text]);
      visible.push(d.id);
      ids.push(d.id);
      note(d);
    } else if (step.op === 'recall') {
      note((await memory.recall({ query: `${SHARED_WORD} alpha`, limit: 3 })).recall);
    } else if (step.op === 'delete' && visible.length > 0) {
      const id = take(visible, step.pick);
      note(await memory.deleteContent({ targets: [id], reason: 'asked to forget' }));
      deleted.push(id);
    } else if (step.op === 'erase' && deleted.length > 0) {
      const id = take(deleted, step.pick);
      note((await memory.eraseContent({ targets: [id], reason: 'erasure request' })).erasure);
      erase(id);
    } else if (step.op === 'deleteAndErase' && visible.length > 0) {
      const id = take(visible, step.pick);
      note((await memory.deleteAndErase({ targets: [id], reason: 'forget me' })).erasure);
      erase(id);
    }
  }
  const live = new Map<string, string>();
  for (const id of visible) for (const word of canaries.get(id)!) live.set(word, id);
  return { erased, live, ids, lastSeq };
}

/** The erased canaries found in `value` (as JSON): empty when the reads forgot them. */
export function erasedCanariesIn(value: unknown, log: CanaryLog): string[] {
  const json = JSON.stringify(value, (_key, v: unknown): unknown =>
    v instanceof Map ? (Object.fromEntries(v) as unknown) : v,
  );
  return [...log.erased].filter((word) => json.includes(word));
}
