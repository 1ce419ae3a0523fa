/**
 * What the verifiable log's tree costs an append on SQLite (the budget: <= 1.1x): the same
 * appends on fresh files, the read models in each append's transaction on both sides, and on one
 * side the tree projection registered too, as `openMemledger` registers it. The tree follows the
 * log by catch-up (src/projections/tree/tree.projection.ts), so its work is timed apart: the
 * catch-up the first checkpoint after the appends runs, and appends + that catch-up against the
 * appends without a tree. Sides interleaved round by round; ratios are the medians of the rounds'
 * ratios, so a slow fsync moment weighs on both sides of the round it falls in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProjectionRuntime } from '../src/projections/index.js';
import { TREE_ROWS_TABLE, treeProjection } from '../src/projections/tree/index.js';
import { openEmbeddedReadModels, readModelsProjection } from '../src/read-models/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { diskMix, type TargetSpread } from './disk.bench.js';
import { measure, median, report } from './support.js';

type Sync = 'FULL' | 'NORMAL';

/** Appends `events` in batches of `batch` on a fresh file; with `withTree`, the tree inline too. */
async function appendSide(
  path: string,
  events: ReturnType<typeof diskMix>,
  batch: number,
  setup: { synchronous: Sync; withTree: boolean },
): Promise<{ appends: number; catchUp: number }> {
  const store = openSqliteStore({ path, synchronous: setup.synchronous });
  const embedded = store.embedded!;
  const readModels = openEmbeddedReadModels(embedded);
  const runtime = openProjectionRuntime(readModels.database, readModels.location, store, embedded);
  runtime.register(readModelsProjection(readModels));
  if (setup.withTree) runtime.register(treeProjection);
  const log = store.log();
  const took = await measure(async () => {
    for (let i = 0; i < events.length; i += batch) await log.append(events.slice(i, i + batch));
  });
  // What the first checkpoint after the appends runs before it answers.
  const caughtUp = await measure(async () => {
    if (setup.withTree) await runtime.advance('default', { needed: [treeProjection.name] });
  });
  if (setup.withTree) {
    const leaves = readModels.database
      .prepare(`SELECT count(*) FROM ${TREE_ROWS_TABLE}`)
      .pluck()
      .get() as number;
    if (leaves !== events.length)
      throw new Error(`the tree holds ${leaves} leaves, not ${events.length}`);
  }
  await store.close();
  return { appends: took.wall, catchUp: caughtUp.wall };
}

/**
 * Runs `appends` appends of `batch` events each, `rounds` times a side; `spread` says where
 * recalls and deletions find their targets (bench/disk.bench.ts).
 */
export async function benchTreeAppend(
  appends: number,
  batch: number,
  synchronous: Sync,
  rounds: number,
  spread: TargetSpread = 'recent',
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-bench-tree-append-'));
  const events = diskMix(appends * batch, spread);
  try {
    const without: number[] = [];
    const withTree: number[] = [];
    const catchUps: number[] = [];
    const ratios: number[] = [];
    const totalRatios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which side goes first, so neither always meets a warmer disk.
      const order = round % 2 === 0 ? [false, true] : [true, false];
      const times = new Map<boolean, { appends: number; catchUp: number }>();
      for (const tree of order) {
        const path = join(dir, `r${round}-${tree ? 'tree' : 'plain'}.db`);
        times.set(tree, await appendSide(path, events, batch, { synchronous, withTree: tree }));
      }
      const plain = times.get(false)!.appends;
      const tree = times.get(true)!;
      without.push(plain);
      withTree.push(tree.appends);
      catchUps.push(tree.catchUp);
      ratios.push(tree.appends / plain);
      totalRatios.push((tree.appends + tree.catchUp) / plain);
    }
    report(
      `tree-append-batch-${batch}-${synchronous}${spread === 'recent' ? '' : '-far-targets'}`,
      {
        'appends x events': `${appends} x ${batch}`,
        'recall targets': spread === 'recent' ? 'the three latest items' : 'drawn from all visible',
        synchronous,
        rounds,
        'read models, no tree (median ms)': Math.round(median(without)),
        'read models + tree registered (median ms)': Math.round(median(withTree)),
        'with tree / without (median of rounds; target <= 1.1)': Number(median(ratios).toFixed(3)),
        'rounds range': `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
        'the tree caught up after the appends (median ms)': Math.round(median(catchUps)),
        'appends + catch-up / appends without (median of rounds)': Number(
          median(totalRatios).toFixed(3),
        ),
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
