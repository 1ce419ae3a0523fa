/**
 * Appends with an embedder configured against the same appends without one (same run, two SQLite
 * files, the order of the two swapped every round): single messages of ~200 characters recorded
 * one after the other through the facade. The embedder stands for a remote provider: it answers
 * after 5 ms with vectors of 384 dimensions that cost next to no CPU (a fixed unit vector per
 * text length), so what is measured is what embedding adds to this process, not the model's work.
 *
 * Two shapes: a **burst** short enough that the follower waits for it to end (its `maxDelayMs`,
 * 1 s), which measures the append path alone; and **sustained** appends for several seconds,
 * during which the follower embeds every second in the same thread (its reads, digests and vec0
 * inserts), which is what a busy writer pays in all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionEmbedder } from '../src/embeddings/index.js';
import { openMemledger, type Memledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { median, measure, report, timeMs, words } from './support.js';

const DIMENSIONS = 384;

/** A provider answering after `latencyMs`, with cheap deterministic unit vectors. */
function remoteLikeEmbedder(latencyMs: number) {
  const basis = Array.from({ length: 64 }, (_, i) => {
    const v = new Float32Array(DIMENSIONS);
    v[i % DIMENSIONS] = 1;
    return v;
  });
  return functionEmbedder({
    model: 'bench-remote-like',
    dimensions: DIMENSIONS,
    embed: async (texts) => {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      return texts.map((text) => basis[text.length % basis.length]!);
    },
  });
}

export async function benchAppendWithEmbedder(burst = 2000, rounds = 21): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-append-embedder-'));
  const open = (name: string, embed: boolean): Memledger =>
    openMemledger({
      store: openSqliteStore({ path: join(dir, `${name}.db`), synchronous: 'NORMAL' }),
      ...(embed ? { embeddings: { embedder: remoteLikeEmbedder(5) } } : {}),
    });
  const plain = open('plain', false);
  const embedding = open('embedding', true);
  try {
    // Sustained rounds are four times as long, so a third as many.
    for (const [shape, appends, times] of [
      ['burst', burst, rounds],
      ['sustained', burst * 4, Math.ceil(rounds / 3)],
    ] as const) {
      // New text every round, as users write it (text embedded before is copied from the cache).
      const textsOf = (round: number) =>
        Array.from({ length: appends }, (_, i) => words((round + 1) * 1_000_000 + i, 30));
      const wall = { plain: [] as number[], embedding: [] as number[] };
      const cpu = { plain: [] as number[], embedding: [] as number[] };
      let behindAtEnd = 0;
      let catchUpMs = 0;
      const sides = [
        ['plain', plain],
        ['embedding', embedding],
      ] as const;
      for (let round = 0; round < times; round++) {
        const texts = textsOf(shape === 'burst' ? round : round + times);
        for (const [name, ledger] of round % 2 === 0 ? sides : [...sides].reverse()) {
          const memory = await ledger.memory(`${shape}-${round}`);
          const taken = await measure(async () => {
            for (const content of texts) await memory.recordMessage({ speaker: 'user', content });
          });
          wall[name].push(taken.wall);
          cpu[name].push(taken.cpu);
          if (name === 'embedding') {
            behindAtEnd += ledger.vectors!.progress()[0]!.behind;
            catchUpMs += await timeMs(() => ledger.vectors!.idle());
          }
        }
      }
      report(`append-embedder, ${shape}`, {
        appends,
        rounds: times,
        'without an embedder: appends/s (median round, baseline)':
          appends / (median(wall.plain) / 1000),
        'with an embedder: appends/s (median round)': appends / (median(wall.embedding) / 1000),
        'with / without, wall (median rounds)': median(wall.embedding) / median(wall.plain),
        'with / without, CPU (median rounds)': median(cpu.embedding) / median(cpu.plain),
        'with / without, CPU (median of the rounds side by side)': median(
          cpu.embedding.map((taken, round) => taken / cpu.plain[round]!),
        ),
        'items not yet embedded when a round ended (mean)': behindAtEnd / times,
        'follower catch-up after a round ms (mean)': catchUpMs / times,
        target:
          shape === 'burst'
            ? 'with / without <= 1.02x (the append path)'
            : 'none: what the follower costs a busy writer',
      });
    }
  } finally {
    await plain.close();
    await embedding.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
