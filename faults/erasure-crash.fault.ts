/**
 * kill -9 during erasures (issue 10), on one SQLite file and its key store, trial after trial
 * (each restart repairs the previous crash). A child (faults/erasure-crash.child.ts) writes a
 * message, deletes and erases it (two acts, or delete-and-erase in one), and dies:
 *   - at a hook: right after the intent (`begin`: the Erasure not yet appended), right after the
 *     append (`append`: the key not yet destroyed), right after the key's destruction
 *     (`complete`: the clean-up's first scrub of the store file not yet run, so its WAL still
 *     holds page images from before the erasure); `trials` kills at each point;
 *   - at a random moment (`random`) while it erases item after item; `trials` kills.
 * After each kill the file is reopened (repair and scrub run) and every item must be either fully
 * erased with its Erasure on record, or not erased at all with its key intact
 * (faults/erasure-crash.check.ts); no erased word may be in any file's bytes while the reopened
 * store runs (scanned before it closes: a clean close would hide residue); a hook kill must land
 * on its side: `begin` not erased, `append`/`complete` erased. After the last trial and a clean
 * close, the files are scanned once more.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkErasures, wordsInFiles, canaryOf } from './erasure-crash.check.js';
import {
  between,
  exited,
  killHard,
  onLines,
  seededRandom,
  sleep,
  spawnScript,
  stderrOf,
  tempDir,
  waitForLine,
  type FaultResult,
} from './support.js';

const MEMORY = 'erasure-trials';
const TARGET =
  'every item fully erased (Erasure on record, key destroyed) or not erased (key intact), hook kills on the expected side, 0 intents left, 0 erased words in the files after each restart (before any clean close) and at the end';

/** Hook points, each with the side a kill there must land on. */
const POINTS = { begin: 'kept', append: 'erased', complete: 'erased' } as const;
type Point = keyof typeof POINTS | 'random';

interface Totals {
  kills: Record<Point, number>;
  /** Items of killed erasures found erased / kept after the repair, per point. */
  erased: Record<Point, number>;
  kept: Record<Point, number>;
  torn: number;
  /** Erased words found in the files after a restart, before any clean close. */
  residue: number;
  wrongSide: number;
  pendingAfterRepair: number;
  /** Kills that left an intent for the repair, per point. */
  repaired: Record<Point, number>;
  noKill: number;
  firstFailure: string;
}

/** Runs the trials: `trials` kills at each hook point and `trials` at random moments. */
export async function erasureCrash(trials: number, seed = 10): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir('erasure-crash');
  const path = join(temp.dir, 'memledger.db');
  const keyHex = randomBytes(32).toString('hex');
  const zero = (): Record<Point, number> => ({ begin: 0, append: 0, complete: 0, random: 0 });
  const totals: Totals = {
    kills: zero(),
    erased: zero(),
    kept: zero(),
    torn: 0,
    residue: 0,
    wrongSide: 0,
    pendingAfterRepair: 0,
    repaired: zero(),
    noKill: 0,
    firstFailure: '',
  };
  const fail = (message: string) => {
    if (totals.firstFailure === '') totals.firstFailure = message;
  };
  const schedule: Point[] = [];
  for (let t = 0; t < trials; t++) schedule.push('begin', 'append', 'complete', 'random');
  try {
    for (const [trial, point] of schedule.entries()) {
      const child = spawnScript('erasure-crash.child.ts', [
        path,
        keyHex,
        MEMORY,
        point === 'random' ? 'loop' : point,
        String(trial),
      ]);
      const items: string[] = [];
      onLines(child, (line) => {
        if (line.startsWith('item ')) items.push(line.slice(5));
        if (line === 'no kill') totals.noKill += 1;
      });
      await waitForLine(child, /^ready$/);
      if (point === 'random') {
        await sleep(between(random, 20, 600));
        await killHard(child);
      } else {
        await exited(child);
      }
      if (child.signalCode !== 'SIGKILL') {
        fail(`trial ${trial} (${point}): child ended with ${child.exitCode}: ${stderrOf(child)}`);
        continue;
      }
      totals.kills[point] += 1;
      const check = await checkErasures(path, keyHex, MEMORY);
      totals.torn += check.torn.length;
      totals.residue += check.residue.length;
      if (check.residue.length > 0)
        fail(
          `trial ${trial} (${point}): after the restart: ${check.residue.slice(0, 2).join('; ')}`,
        );
      totals.pendingAfterRepair += check.pending;
      totals.repaired[point] += check.pendingBefore;
      if (check.torn.length > 0) fail(`trial ${trial} (${point}): ${check.torn.join('; ')}`);
      if (check.pending > 0) fail(`trial ${trial} (${point}): ${check.pending} intents pending`);
      const last = items[items.length - 1];
      if (last === undefined) continue; // killed before the first item was written
      const side = check.erased.has(last) ? 'erased' : check.kept.has(last) ? 'kept' : 'absent';
      if (side === 'erased') totals.erased[point] += 1;
      if (side === 'kept') totals.kept[point] += 1;
      if (point !== 'random' && side !== POINTS[point]) {
        totals.wrongSide += 1;
        fail(`trial ${trial} (${point}): item ${last} ${side}, expected ${POINTS[point]}`);
      }
    }
    const check = await checkErasures(path, keyHex, MEMORY);
    const leaks = wordsInFiles(path, [...check.erased].map(canaryOf));
    if (leaks.length > 0) fail(`after a clean close: ${leaks.slice(0, 3).join('; ')}`);
    const kills = Object.values(totals.kills).reduce((a, b) => a + b, 0);
    const passed =
      totals.firstFailure === '' &&
      totals.torn === 0 &&
      totals.residue === 0 &&
      totals.wrongSide === 0 &&
      totals.pendingAfterRepair === 0 &&
      leaks.length === 0 &&
      kills === schedule.length;
    const sides = (p: Point) =>
      `${p} ${totals.erased[p]}/${totals.kept[p]} (${totals.repaired[p]} repaired)`;
    return {
      name: 'erasure-crash',
      size: `${trials} kills at each of begin, append, complete and random`,
      target: TARGET,
      passed,
      summary:
        `${kills} kills (last item erased/kept: ${(['begin', 'append', 'complete', 'random'] as const).map(sides).join(', ')}), ` +
        `${totals.torn} torn, ${totals.residue} erased words in the files after a restart, ${totals.wrongSide} on the wrong side, ${totals.pendingAfterRepair} intents left, ` +
        `${check.erased.size} items erased, ${check.kept.size} kept, ${leaks.length} erased words in the files`,
      figures: {
        trials,
        kills,
        killsBegin: totals.kills.begin,
        killsAppend: totals.kills.append,
        killsComplete: totals.kills.complete,
        killsRandom: totals.kills.random,
        erasedBegin: totals.erased.begin,
        keptBegin: totals.kept.begin,
        erasedAppend: totals.erased.append,
        keptAppend: totals.kept.append,
        erasedComplete: totals.erased.complete,
        keptComplete: totals.kept.complete,
        erasedRandom: totals.erased.random,
        keptRandom: totals.kept.random,
        repairedBegin: totals.repaired.begin,
        repairedAppend: totals.repaired.append,
        repairedComplete: totals.repaired.complete,
        repairedRandom: totals.repaired.random,
        torn: totals.torn,
        residueAfterRestart: totals.residue,
        wrongSide: totals.wrongSide,
        pendingAfterRepair: totals.pendingAfterRepair,
        noKill: totals.noKill,
        itemsErased: check.erased.size,
        itemsKept: check.kept.size,
        wordsInFiles: leaks.length,
        firstFailure: totals.firstFailure,
      },
    };
  } finally {
    temp.remove();
  }
}
