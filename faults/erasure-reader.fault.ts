/**
 * A reader holding an old snapshot across an erasure, then kill -9 (issue 28): a backup or an
 * export keeps a read transaction open on every file that can hold words while the application
 * deletes-and-erases an item it had found by search. The clean-up's scrub cannot complete while
 * the reader holds its snapshot, and must not wait for it either:
 *   - the erasure answers at once, saying its clean-up is pending and why;
 *   - an unrelated memory's state keeps answering in milliseconds meanwhile;
 *   - the server is killed (SIGKILL) while the reader still holds, and started again;
 *   - once the reader lets go, the restarted server's scrub completes (`/metrics` shows no
 *     pending clean-up) and no file in the data folder holds the erased words — scanned while
 *     the server runs, never after a clean close (which would hide residue).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { faultStore, type FaultStoreKind } from './fault-stores.js';
import {
  killHard,
  percentile,
  postJson,
  sleep,
  spawnScript,
  startServerChild,
  stopServerChild,
  tempDir,
  waitForLine,
  type FaultResult,
  type ServerChild,
} from './support.js';

const MEMORY = 'erasure-reader';
const BYSTANDER = 'bystander';
const CANARY = 'canaryreaderf4e1c9a07b3d';
/** An unrelated GET slower than this is a frozen server. */
const MAX_GET_MS = 1000;
const TARGET = `erasure answered with its clean-up pending; unrelated GETs < ${MAX_GET_MS} ms while the reader holds; after kill -9, restart and the reader's end: 0 pending clean-ups, 0 erased words in any file (scanned while the server runs)`;

/** Where each store keeps the files that can hold words, in the fault's folder. */
function wordFiles(kind: FaultStoreKind, dir: string): string[] {
  return kind === 'sqlite'
    ? [join(dir, 'memledger.db'), join(dir, 'memledger.db.keys')]
    : [join(dir, 'read-models.db'), join(dir, 'eventstoredb.keys')];
}

/** Every file of the folder holding `word`. */
function filesHolding(dir: string, word: string): string[] {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile() && readFileSync(file).includes(word));
}

/** GETs an unrelated memory's state page every `everyMs` until `until` resolves; their times. */
async function bystanderTimes(url: string, until: Promise<unknown>, everyMs = 50) {
  const times: number[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    try {
      const response = await fetch(`${url}/api/memories/${BYSTANDER}/state?limit=5`, {
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
    } catch {
      // No answer within 10 s (or none at all) is as slow as a GET gets here.
    }
    times.push(performance.now() - started);
    await sleep(everyMs);
  }
  return times;
}

/** The `memledger_erasure_cleanup_pending` gauge of a server's `/metrics`. */
async function pendingCleanups(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^memledger_erasure_cleanup_pending(?:\{[^}]*\})? (\d+)/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/** Runs the fault once on `kind`, the reader holding its snapshots `holdMs`. */
export async function erasureReader(
  kind: FaultStoreKind = 'sqlite',
  holdMs = 8000,
): Promise<FaultResult> {
  const temp = tempDir(`erasure-reader-${kind}`);
  const store = await faultStore(kind, temp.dir);
  const config = store.serverConfig({ sealed: true });
  let server: ServerChild | undefined;
  try {
    server = await startServerChild(config);
    const api = (memory: string) => `${server!.url}/api/memories/${memory}`;
    const written = await postJson(`${api(MEMORY)}/messages`, {
      speaker: 'user',
      content: `my secret is ${CANARY}`,
    });
    const id = (written.json as { id: string }).id;
    // Found by a search first, as in use: the words are then in the search index's pages too.
    await fetch(`${api(MEMORY)}/search?q=${CANARY}`);
    await postJson(`${api(BYSTANDER)}/messages`, { speaker: 'user', content: 'unrelated' });

    const reader = spawnScript('snapshot-reader.child.ts', [
      String(holdMs),
      ...wordFiles(kind, temp.dir),
    ]);
    const released = waitForLine(reader, /^released$/);
    await waitForLine(reader, /^holding$/);
    const erasing = performance.now();
    let eraseMs = Number.NaN;
    const erasure = postJson(`${api(MEMORY)}/deletions`, {
      targets: [id],
      reason: 'forget me',
      erase: true,
    }).finally(() => (eraseMs = performance.now() - erasing));
    // Unrelated requests from the moment the erasure is asked for: they must not wait for it.
    const beforeKill = await bystanderTimes(
      server.url,
      erasure.then(() => sleep(holdMs / 3)),
    );
    const erased = await erasure;
    const cleanup = (erased.json as { cleanup?: { state?: string } }).cleanup?.state ?? 'absent';

    await killHard(server.child);
    server = await startServerChild(config);
    const afterRestart = await bystanderTimes(server.url, released);
    const releasedAt = performance.now();
    let pending = await pendingCleanups(server.url);
    while (pending !== 0 && performance.now() - releasedAt < 10_000) {
      await sleep(100);
      pending = await pendingCleanups(server.url);
    }
    const cleanMs = performance.now() - releasedAt;
    const residue = filesHolding(temp.dir, CANARY);

    const maxGet = Math.max(...beforeKill, ...afterRestart);
    const passed =
      erased.status === 201 &&
      cleanup === 'pending' &&
      maxGet < MAX_GET_MS &&
      pending === 0 &&
      residue.length === 0;
    return {
      name: kind === 'sqlite' ? 'erasure-reader' : 'erasure-reader-esdb',
      size: `one erasure under a ${holdMs / 1000} s reader, kill -9 and restart while it holds`,
      target: TARGET,
      passed,
      summary:
        `erasure ${erased.status} in ${eraseMs.toFixed(0)} ms, clean-up ${cleanup}; unrelated GETs max ${maxGet.toFixed(0)} ms, ` +
        `p50 ${percentile([...beforeKill, ...afterRestart], 50).toFixed(1)} ms (${beforeKill.length + afterRestart.length}); ` +
        `${pending} pending ${cleanMs.toFixed(0)} ms after the reader let go; erased words in ${residue.length} files` +
        (residue.length > 0 ? ` (${residue.join(', ')})` : ''),
      figures: {
        holdMs,
        status: erased.status,
        eraseMs: Math.round(eraseMs),
        cleanupAnswered: cleanup,
        getsBeforeKill: beforeKill.length,
        getsAfterRestart: afterRestart.length,
        maxGetMs: Math.round(maxGet),
        p50GetMs: Number(percentile([...beforeKill, ...afterRestart], 50).toFixed(1)),
        pendingAfter: pending,
        cleanMsAfterRelease: Math.round(cleanMs),
        filesWithWords: residue.length,
      },
    };
  } finally {
    if (server) await stopServerChild(server).catch(() => undefined);
    await store.close();
    temp.remove();
  }
}
