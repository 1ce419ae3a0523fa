/**
 * The verifiable log at n events on a SQLite file (issue 30's targets), each against a baseline
 * measured in the same run:
 * - the tree built for an existing log vs the other read models' rebuild of the same log;
 * - inclusion and consistency proofs (p50/p99) vs reading the one event a proof needs;
 * - checkpoint signing after an append vs a bare Ed25519 signature of its text;
 * - proof sizes: hashes per path vs ceil(log2 n).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger } from '../src/memory/index.js';
import { openProjectionRuntime } from '../src/projections/index.js';
import { treeProjection } from '../src/projections/tree/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { generateSigner } from '../src/tlog/index.js';
import { measure, percentile, report, seededRandom, syntheticLog, timeMs } from './support.js';

export async function benchVerifiableLog(n = 1_000_000, samples = 1000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-tlog-'));
  try {
    const path = join(dir, 'tlog.db');
    await writeLog(path, n);
    const build = await buildTimes(path);
    const queries = await queryTimes(path, n, samples);
    report('verifiable-log', {
      events: n,
      'read models rebuild s (baseline)': build.readModels / 1000,
      'tree build for the existing log s': build.tree / 1000,
      'tree / read models rebuild ratio': build.tree / build.readModels,
      'target tree / rebuild ratio': 1.5,
      ...queries,
      note: 'the tree of the existing log is built by the projection runtime catch-up (advance); a checkpoint after an append first catches the tree up by that append',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A log of `n` synthetic events, written through the bare store (no read models, no tree). */
async function writeLog(path: string, n: number): Promise<void> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const log = store.log();
  const events = syntheticLog(n, false);
  for (let i = 0; i < n; i += 5000) await log.append(events.slice(i, i + 5000));
  await store.close();
}

/** Milliseconds to build the tree of the whole log, and to rebuild the read models. */
async function buildTimes(path: string): Promise<{ tree: number; readModels: number }> {
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  try {
    // Catch-up only (no inline hook): the build of a log written without the tree.
    const runtime = openProjectionRuntime(store.embedded!.database, path, store);
    runtime.register(treeProjection);
    const tree = await measure(() => runtime.advance('default'));
    const memledger = openMemledger({ store, closeStore: false });
    const memory = await memledger.memory();
    const readModels = await measure(() => memory.rebuild());
    await memledger.close();
    return { tree: tree.wall, readModels: readModels.wall };
  } finally {
    await store.close();
  }
}

/** Proof and checkpoint times and sizes at `n` events, with their baselines. */
async function queryTimes(path: string, n: number, samples: number) {
  const signer = generateSigner('bench.example');
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const memledger = openMemledger({
    store,
    log: { name: signer.name, signer, witnesses: [] },
  });
  try {
    const memory = await memledger.memory();
    await memory.checkpoint();
    const log = store.log();
    const random = seededRandom(42);
    const pick = (below: number) => Math.floor(random() * below);
    const read: number[] = [];
    const inclusion: number[] = [];
    const consistency: number[] = [];
    let longestInclusion = 0;
    let longestConsistency = 0;
    let proofBytes = 0;
    for (let i = 0; i < samples; i++) {
      const seq = pick(n);
      read.push(
        await timeMs(async () => {
          for await (const _ of log.readProjected({ fromSeq: seq, toSeq: seq })) break;
        }),
      );
      let proof!: Awaited<ReturnType<typeof memory.proveInclusion>>;
      inclusion.push(await timeMs(async () => (proof = await memory.proveInclusion(seq, n))));
      longestInclusion = Math.max(longestInclusion, proof.path.length);
      proofBytes = Math.max(proofBytes, JSON.stringify(proof).length);
      const from = 1 + pick(n - 1);
      let path: readonly string[] = [];
      consistency.push(
        await timeMs(async () => ({ path } = await memory.proveConsistency(from, n))),
      );
      longestConsistency = Math.max(longestConsistency, path.length);
    }
    const signing = await signingTimes(memory, signer, Math.min(samples, 300));
    return {
      'read one event p99 ms (baseline)': percentile(read, 99),
      'inclusion proof p50 ms': percentile(inclusion, 50),
      'inclusion proof p99 ms': percentile(inclusion, 99),
      'consistency proof p50 ms': percentile(consistency, 50),
      'consistency proof p99 ms': percentile(consistency, 99),
      'inclusion p99 / read one event p99 ratio': percentile(inclusion, 99) / percentile(read, 99),
      ...signing,
      'target proof and checkpoint p99 ms': 2,
      'longest inclusion path (hashes)': longestInclusion,
      'ceil(log2 n)': Math.ceil(Math.log2(n)),
      'longest consistency path (hashes)': longestConsistency,
      'largest inclusion proof JSON bytes': proofBytes,
      'path bytes at most (32 per level)': 32 * Math.ceil(Math.log2(n)),
    };
  } finally {
    await memledger.close();
  }
}

/** A new checkpoint after each append (consistency check, signature, kept) vs a bare signature. */
async function signingTimes(
  memory: Awaited<ReturnType<ReturnType<typeof openMemledger>['memory']>>,
  signer: ReturnType<typeof generateSigner>,
  samples: number,
) {
  const checkpoint: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < samples; i++) {
    await memory.recordMessage({ speaker: 'user', content: `checkpoint ${i}` });
    let note = '';
    checkpoint.push(await timeMs(async () => ({ note } = await memory.checkpoint())));
    const text = Buffer.from(note.slice(0, note.indexOf('\n\n') + 1));
    bare.push(await timeMs(() => signer.sign(text)));
  }
  return {
    'bare Ed25519 signature p99 ms (baseline)': percentile(bare, 99),
    'checkpoint after an append p50 ms': percentile(checkpoint, 50),
    'checkpoint after an append p99 ms': percentile(checkpoint, 99),
    'checkpoint p99 / bare signature p99 ratio': percentile(checkpoint, 99) / percentile(bare, 99),
  };
}
