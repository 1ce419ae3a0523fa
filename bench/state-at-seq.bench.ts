/**
 * State at an arbitrary seq (the replay slider) on a large log, through the facade on the
 * in-memory store, against the current state (already folded) measured in the same run.
 */
import { openMemledger } from '../src/memory/index.js';
import { openInMemoryStore } from '../src/store/in-memory/in-memory.event-log.js';
import { percentile, report, syntheticLog, timeMs } from './support.js';

export async function benchStateAtSeq(n = 100_000, samples = 40): Promise<void> {
  const store = openInMemoryStore();
  const log = store.log();
  const events = syntheticLog(n, false);
  for (let i = 0; i < n; i += 5000) await log.append(events.slice(i, i + 5000));
  const memledger = openMemledger({ store });
  const memory = await memledger.memory();
  await memory.state();
  const current: number[] = [];
  const asOf: number[] = [];
  for (let i = 0; i < samples; i++) {
    current.push(await timeMs(() => memory.statePage({ limit: 100 })));
    asOf.push(
      await timeMs(() =>
        memory.statePage({ upToSeq: Math.floor(((i + 0.5) / samples) * (n - 1)), limit: 100 }),
      ),
    );
  }
  // A live memory: every query follows an append, so nothing cached from the last query helps.
  const afterAppend: number[] = [];
  for (let i = 0; i < samples; i++) {
    await memory.recordMessage({ speaker: 'user', content: `live ${i}` });
    afterAppend.push(
      await timeMs(() =>
        memory.statePage({ upToSeq: Math.floor(((i + 0.5) / samples) * (n - 1)), limit: 100 }),
      ),
    );
  }
  await memledger.close();
  report('state-at-seq', {
    events: n,
    samples,
    'current state page p50 ms (baseline)': percentile(current, 50),
    'as-of state page p50 ms': percentile(asOf, 50),
    'as-of state page p99 ms': percentile(asOf, 99),
    'as-of / current p50 ratio': percentile(asOf, 50) / percentile(current, 50),
    'as-of page right after an append p50 ms': percentile(afterAppend, 50),
    'as-of page right after an append p99 ms': percentile(afterAppend, 99),
    'target p99 ms at 1 M events (DESIGN)': 5,
  });
}
