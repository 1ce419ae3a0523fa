/**
 * replay() throughput on a 1 M-event log, against two baselines measured in the same run: a bare
 * loop that only counts kinds, and a loop that puts each event in a Map by id (the least a fold
 * that can answer "does this id exist?" must do; on this machine hash lookups dominate).
 */
import { replay } from '../src/core/index.js';
import { report, syntheticLog, timeMs } from './support.js';

export async function benchReplay(n = 1_000_000): Promise<void> {
  const log = syntheticLog(n);
  const counts = { message: 0, document: 0, recall: 0, deletion: 0 };
  const baselineMs = Math.min(
    ...(await Promise.all([0, 1, 2].map(() => timeMs(() => log.forEach((e) => counts[e.kind]++))))),
  );
  const indexMs = Math.min(
    ...(await Promise.all(
      [0, 1, 2].map(() =>
        timeMs(() => {
          const byId = new Map<string, unknown>();
          for (const e of log) byId.set(e.id, e);
        }),
      ),
    )),
  );
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) runs.push(await timeMs(() => replay(log)));
  const replayMs = Math.min(...runs);
  report('replay', {
    events: n,
    'replay ms (best of 3)': replayMs,
    'replay events/s': Math.round(n / (replayMs / 1000)),
    'baseline (count kinds) ms': baselineMs,
    'replay / baseline time ratio': replayMs / baselineMs,
    'baseline (index ids in a Map) ms': indexMs,
    'replay / index-ids time ratio': replayMs / indexMs,
    'target events/s (DESIGN)': 3_000_000,
  });
}
