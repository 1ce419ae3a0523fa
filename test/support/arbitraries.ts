/**
 * fast-check arbitraries for valid memledger logs. An arbitrary draws a list of abstract
 * operations; `buildLog` interprets them against a running model so every recall names only
 * visible content and every deletion targets existing, undeleted content.
 */
import fc from 'fast-check';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  type MemoryEvent,
  type Sequenced,
} from '../../src/core/index.js';

/** One abstract step of a log. */
export type Op =
  | { readonly op: 'message'; readonly text: string }
  | { readonly op: 'document'; readonly text: string }
  | { readonly op: 'recall'; readonly picks: readonly number[] }
  | { readonly op: 'delete'; readonly picks: readonly number[] };

const word = fc.constantFrom(
  'alpha',
  'beta',
  'gamma',
  'delta',
  'deploy',
  'key',
  'secret',
  'runbook',
);
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const picks = fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 4 });

/** Arbitrary operation lists (weights favour writes so deletions have something to delete). */
export const opsArbitrary = (maxLength = 40): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: text.map((t) => ({ op: 'message' as const, text: t })) },
      { weight: 2, arbitrary: text.map((t) => ({ op: 'document' as const, text: t })) },
      { weight: 2, arbitrary: picks.map((p) => ({ op: 'recall' as const, picks: p })) },
      { weight: 2, arbitrary: picks.map((p) => ({ op: 'delete' as const, picks: p })) },
    ),
    { maxLength },
  );

/** Interprets operations into a valid, unsequenced log with deterministic ids and times. */
export function buildLog(ops: readonly Op[]): MemoryEvent[] {
  let n = 0;
  const defaults = {
    newId: () => `0193a4c2-0000-7000-8000-${(n++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1) + n * 1000),
  };
  const events: MemoryEvent[] = [];
  const visible: string[] = [];
  const choose = (p: readonly number[]) => [...new Set(p.map((i) => visible[i % visible.length]!))];
  for (const step of ops) {
    switch (step.op) {
      case 'message':
        events.push(createMessage({ speaker: 'user', content: step.text }, defaults));
        visible.push(events.at(-1)!.id);
        break;
      case 'document':
        events.push(createDocument({ name: 'doc', text: step.text }, defaults));
        visible.push(events.at(-1)!.id);
        break;
      case 'recall':
        events.push(
          createRecall(
            { query: 'q', recalled: visible.length ? choose(step.picks) : [] },
            defaults,
          ),
        );
        break;
      case 'delete': {
        if (visible.length === 0) break;
        const targets = choose(step.picks);
        events.push(createDeletion({ targets, reason: 'test' }, defaults));
        for (const t of targets) visible.splice(visible.indexOf(t), 1);
        break;
      }
    }
  }
  return events;
}

/** Numbers events 0..n-1, as a store would. */
export const sequenced = (events: readonly MemoryEvent[]): Sequenced[] =>
  events.map((event, seq) => Object.freeze({ ...event, seq }) as Sequenced);
