/**
 * The in-process EventStoreDB test server is stopped and restarted while a writer appends and
 * while two readers follow the stream: a raw `log.subscribe()` and the read models of an
 * `openMemledger` (its `applied$`). Each trial stops the server mid-append (and so
 * mid-subscription), keeps it down 50-400 ms, restarts it, and lets the writer go on. The writer
 * retries a failed append with the same event (appends are idempotent by id) until it resolves.
 * Checked: every acknowledged id is in the stream exactly once, no id twice, the subscriber and
 * the read models saw every seq once and in order, and the read models' totals equal the log.
 */
import { v7 as uuidv7 } from 'uuid';
import { createMessage, type Sequenced } from '../src/core/index.js';
import { openMemledger } from '../src/memory/index.js';
import { openEventStoreDbStore } from '../src/store/eventstoredb/eventstoredb.event-log.js';
import { startEsdbTestServer } from '../test/support/esdb-test-server/index.js';
import { between, seededRandom, sleep, type FaultResult } from './support.js';

const MEMORY = 'restart-trials';

/** Follows seqs: counts repeats and out-of-order arrivals, remembers the highest. */
class SeqFollower {
  last = -1;
  repeats = 0;
  gaps = 0;
  see(seq: number): void {
    if (seq <= this.last) this.repeats += 1;
    else if (seq !== this.last + 1) this.gaps += 1;
    this.last = Math.max(this.last, seq);
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(20);
  return done();
}

/** `trials` stop/restart cycles of the EventStoreDB test server mid-append and mid-subscription. */
export async function esdbRestarts(trials: number, seed = 3): Promise<FaultResult> {
  const random = seededRandom(seed);
  const server = await startEsdbTestServer();
  const extra = { resubscribeDelayMs: 50, deadlineMs: 2000 };
  const writerStore = openEventStoreDbStore({ connectionString: server.connectionString }, extra);
  const readerStore = openEventStoreDbStore({ connectionString: server.connectionString }, extra);
  const memledger = openMemledger({ store: readerStore });
  const log = writerStore.log(MEMORY);
  const abort = new AbortController();
  const subscriber = new SeqFollower();
  const applied = new SeqFollower();
  const acknowledged = new Set<string>();
  let failedAttempts = 0;
  let gaveUp = 0;
  let stalledFollowers = 0;
  try {
    // The stream exists before the readers start, so both follow it from seq 0.
    const first = createMessage({ id: uuidv7(), speaker: 'writer', content: 'first' });
    await log.append([first]);
    acknowledged.add(first.id);
    const memory = await memledger.memory(MEMORY);
    const appliedSubscription = memory.applied$.subscribe((event: Sequenced) =>
      applied.see(event.seq),
    );
    await memory.catchUp();
    applied.last = 0;
    const following = (async () => {
      for await (const event of log.subscribe({ signal: abort.signal })) subscriber.see(event.seq);
    })().catch(() => undefined);

    for (let trial = 0; trial < trials; trial++) {
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing && i < 10_000; i++) {
          const event = createMessage({
            id: uuidv7(),
            speaker: 'writer',
            content: `t${trial} m${i}`,
          });
          // Retry the same event until it is acknowledged (bounded: 200 attempts).
          for (let attempt = 0; ; attempt++) {
            try {
              await log.append([event]);
              acknowledged.add(event.id);
              break;
            } catch {
              failedAttempts += 1;
              if (attempt >= 200) {
                gaveUp += 1;
                break;
              }
              await sleep(25);
            }
          }
        }
      })();
      await sleep(between(random, 30, 250));
      await server.stop();
      await sleep(between(random, 50, 400));
      await server.restart();
      await sleep(between(random, 50, 200));
      writing = false;
      await writer;
      const head = (await log.lastSeq()) ?? -1;
      const caughtUp = await waitUntil(
        () => subscriber.last >= head && applied.last >= head,
        15_000,
      );
      if (!caughtUp) stalledFollowers += 1;
    }

    const counts = new Map<string, number>();
    for await (const event of log.read()) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
    const lost = [...acknowledged].filter((id) => !counts.has(id)).length;
    const duplicates = [...counts.values()].filter((count) => count > 1).length;
    const messages = [...counts.keys()].length;
    const page = await memory.statePage({ limit: 1 });
    const readModelMismatch = page.totals.messages !== messages ? 1 : 0;
    appliedSubscription.unsubscribe();
    abort.abort();
    await following;
    const appliedTwice = subscriber.repeats + applied.repeats;
    const passed =
      lost === 0 &&
      duplicates === 0 &&
      appliedTwice === 0 &&
      subscriber.gaps + applied.gaps === 0 &&
      readModelMismatch === 0 &&
      stalledFollowers === 0 &&
      gaveUp === 0;
    return {
      name: 'esdb-restart',
      size: `${trials} trials`,
      target: '0 lost, 0 applied twice',
      passed,
      summary: `${acknowledged.size} acknowledged, ${lost} lost, ${duplicates} duplicates, ${appliedTwice} applied twice, ${subscriber.gaps + applied.gaps} gaps, ${stalledFollowers} stalled, ${failedAttempts} append attempts failed and retried`,
      figures: {
        trials,
        acknowledged: acknowledged.size,
        lost,
        duplicates,
        subscriberRepeats: subscriber.repeats,
        subscriberGaps: subscriber.gaps,
        readModelRepeats: applied.repeats,
        readModelGaps: applied.gaps,
        readModelTotalsMismatch: readModelMismatch,
        stalledFollowers,
        failedAttemptsRetried: failedAttempts,
        appendsGivenUp: gaveUp,
      },
    };
  } finally {
    abort.abort();
    await memledger.close().catch(() => undefined);
    await writerStore.close().catch(() => undefined);
    await server.close();
  }
}
