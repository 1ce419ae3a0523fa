/** Shared bench helpers: timing, percentiles, a synthetic log, and result output. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { functionEmbedder, type Embedder } from '../src/embeddings/index.js';
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

/**
 * Wall and CPU milliseconds taken by `work`. CPU time (this process's user + system) moves far
 * less with other load on a shared machine, though it leaves out time waiting on I/O.
 */
export async function measure(work: () => unknown): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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
  const next = seededRandom(seed * 2654435761);
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

/** A seeded PRNG (mulberry32): numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Common English words, most frequent first (drawn with a Zipf-like skew by {@link proseText}). */
const ENGLISH = `the of and to a in is that for it as was with be by on not he this are or his from
at which but have an they you were her she there one all we their been has when who will more no if
out so said what up its about into than them can only other new some could time these two may then
do first any my now such like our over man me even most made after also did many before must through
back years where much your way well down should because each just those people how too little state
good very make world still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against go came right used take
three deploy server build release branch commit review test failing passing issue ticket customer
meeting notes plan budget invoice report draft schedule deadline team project backend frontend query
database index cache latency memory agent prompt context recall search document summary question
answer user assistant model token error retry timeout config staging production rollout migration
schema backup restore password account login session request response payload webhook queue worker
cluster node region metric alert dashboard incident postmortem owner priority sprint roadmap feature
bug fix patch version upgrade library package dependency license contract vendor travel flight hotel
dinner lunch coffee weekend monday tuesday wednesday thursday friday morning afternoon evening tomorrow
yesterday today week month quarter email call phone address office home kitchen garden doctor school
birthday gift recipe paris berlin tokyo london kubernetes postgres sqlite typescript node python api`
  .split(/\s+/)
  .filter((word) => word.length > 0);

/** Natural-looking English text of about `chars` characters: sentences of 5-17 skewed words. */
export function proseText(random: () => number, chars: number): string {
  const sentences: string[] = [];
  let length = 0;
  while (length < chars) {
    const count = 5 + Math.floor(random() * 13);
    const picked: string[] = [];
    for (let i = 0; i < count; i++)
      picked.push(ENGLISH[Math.floor(ENGLISH.length ** random()) - 1] ?? 'the');
    const sentence = picked.join(' ');
    sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
    length += sentence.length + 2;
  }
  return sentences.join(' ');
}

/** Options of {@link mixedEventBatches}. */
export interface MixOptions {
  /** Events in all. */
  readonly n: number;
  /** Events per batch. @defaultValue 1000 */
  readonly batch?: number;
  /** PRNG seed. @defaultValue 1 */
  readonly seed?: number;
}

/** Bumped whenever {@link mixedEventBatches} would generate different events (cached files key on it). */
export const MIX_VERSION = 1;

const MIX_EPOCH_MS = Date.UTC(2024, 0, 1);

/** The timestamp (ms) of the i-th mixed event: 1.5 s apart on average, strictly increasing. */
const mixTimeMs = (i: number) =>
  MIX_EPOCH_MS + i * 1500 + ((Math.imul(i, 2654435761) >>> 0) % 1000);

/** The id of the i-th mixed event: UUID v7 shape (48-bit ms timestamp, version 7, variant 8), counter in the tail. */
export function mixedEventId(i: number): string {
  const ms = mixTimeMs(i).toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7000-8000-${i.toString(16).padStart(12, '0')}`;
}

/**
 * A realistic, deterministic log in batches: 70 % messages (~200 characters of prose), 15 %
 * documents (~1 KB), 10 % recalls (of 1-5 visible items, half of them among the latest 1,000),
 * 5 % deletions (of one visible item). Only the visible items' numbers are held (4 bytes each),
 * so memory stays bounded by the batch, whatever `n`.
 */
export function* mixedEventBatches(options: MixOptions): Generator<MemoryEvent[]> {
  const { n, batch = 1000 } = options;
  const random = seededRandom(options.seed ?? 1);
  let visible = new Int32Array(1024);
  let visibleCount = 0;
  const pickVisible = () => {
    const recent = random() < 0.5 && visibleCount > 1000;
    const from = recent ? visibleCount - 1000 : 0;
    return from + Math.floor(random() * (visibleCount - from));
  };
  let events: MemoryEvent[] = [];
  for (let i = 0; i < n; i++) {
    const defaults = { newId: () => mixedEventId(i), now: () => new Date(mixTimeMs(i)) };
    const r = random();
    let event: MemoryEvent;
    if (r >= 0.95 && visibleCount > 0) {
      const at = pickVisible();
      const target = mixedEventId(visible[at]!);
      visible[at] = visible[--visibleCount]!;
      event = createDeletion({ targets: [target], reason: 'user asked to forget' }, defaults);
    } else if (r >= 0.85 && r < 0.95 && visibleCount > 0) {
      const recalled = new Set<string>();
      const want = Math.min(visibleCount, 1 + Math.floor(random() * 5));
      while (recalled.size < want) recalled.add(mixedEventId(visible[pickVisible()]!));
      event = createRecall(
        { query: proseText(random, 20).slice(0, -1), recalled: [...recalled] },
        defaults,
      );
    } else {
      const sessionId = `session-${Math.floor(i / 400)}`;
      event =
        r >= 0.7 && r < 0.85
          ? createDocument(
              { name: `notes-${i}.md`, text: proseText(random, 700 + random() * 600), sessionId },
              defaults,
            )
          : createMessage(
              {
                speaker: i % 2 ? 'assistant' : 'user',
                content: proseText(random, 100 + random() * 140),
                sessionId,
              },
              defaults,
            );
      if (visibleCount === visible.length) {
        const grown = new Int32Array(visible.length * 2);
        grown.set(visible);
        visible = grown;
      }
      visible[visibleCount++] = i;
    }
    events.push(event);
    if (events.length === batch) {
      yield events;
      events = [];
    }
  }
  if (events.length > 0) yield events;
}

/**
 * An embedder over `compute` memoised: each text is computed once and reused by every version a
 * bench builds (the model is not what a bench of the vector index measures).
 */
export function memoisedEmbedder(
  model: string,
  dimensions: number,
  compute: (text: string) => Float32Array,
): { embedder: Embedder; vectorOf: (text: string) => Float32Array } {
  const memo = new Map<string, Float32Array>();
  const vectorOf = (text: string) => {
    let vector = memo.get(text);
    if (!vector) memo.set(text, (vector = compute(text)));
    return vector;
  };
  const embedder = functionEmbedder({
    model,
    dimensions,
    batchSize: 4096,
    embed: (texts) => texts.map(vectorOf),
  });
  return { embedder, vectorOf };
}
