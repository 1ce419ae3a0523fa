/** Shared bench helpers: timing, percentiles, a synthetic log, and result output. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  type MemoryEvent,
} from '../src/core/index.js';

/** Milliseconds taken by `work`. */
export async function timeMs(work: () => unknown): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** The p-th percentile (0-100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A 5,000-word vocabulary of pseudo-words, so a query matches a realistic share of documents. */
const WORDS = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919).toString(36)}`);

/** Deterministic text of `n` words drawn uniformly from the vocabulary (mulberry32 PRNG). */
export function words(seed: number, n = 12): string {
  let state = (seed * 2654435761) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]!);
  return out.join(' ');
}

/**
 * A valid synthetic log of `n` events: mostly messages and documents, a recall every 10th
 * event, a deletion every 50th (of content written earlier and not yet deleted).
 */
export function syntheticLog(n: number, sequence = true): MemoryEvent[] {
  let id = 0;
  const defaults = {
    newId: () => `00000000-0000-7000-8000-${(id++).toString(16).padStart(12, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1) + id * 1000),
  };
  const events: MemoryEvent[] = [];
  const visible: string[] = [];
  for (let i = 0; i < n; i++) {
    let event: MemoryEvent;
    if (i % 50 === 49 && visible.length > 10) {
      event = createDeletion(
        { targets: [visible.splice(visible.length >> 1, 1)[0]!], reason: 'bench' },
        defaults,
      );
    } else if (i % 10 === 9 && visible.length > 3) {
      event = createRecall({ query: 'deploy key', recalled: visible.slice(-3) }, defaults);
    } else if (i % 3 === 0) {
      event = createDocument({ name: `doc-${i}`, text: words(i, 40) }, defaults);
      visible.push(event.id);
    } else {
      event = createMessage({ speaker: 'user', content: words(i) }, defaults);
      visible.push(event.id);
    }
    events.push(sequence ? { ...event, seq: i } : event);
  }
  return events;
}

/** Prints a result block and writes it to bench/results/<name>.json. */
export function report(name: string, figures: Record<string, number | string>): void {
  console.log(`\n## ${name}`);
  for (const [key, value] of Object.entries(figures)) {
    console.log(
      `  ${key.padEnd(44)} ${typeof value === 'number' ? value.toLocaleString('en-US', { maximumFractionDigits: 3 }) : value}`,
    );
  }
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name}.json`),
    JSON.stringify({ name, at: new Date().toISOString(), ...figures }, null, 2),
  );
}
