/**
 * kill -9 during appends: a library writer (faults/writer.child.ts, SQLite) and the HTTP server
 * (faults/server.child.ts, on SQLite and on EventStoreDB) are killed at a random moment while
 * appending, trial after trial on the same data (each restart recovers the previous crash). After
 * each kill every acknowledged id must be stored exactly once, no id twice, and the log must fold
 * (the code of `memledger verify`); the real `memledger verify --all` runs at the end, and the
 * read models must hold each stored item once. SQLite trials alternate `synchronous` FULL and
 * NORMAL (both promise to survive a process crash). On EventStoreDB the in-process test server
 * lives on while the memledger server is killed, as a database outlives an application crash;
 * what is at stake is the server's local id index and read-model files, killed mid-write.
 */
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import {
  faultStore,
  sqliteFaultStore,
  type FaultStore,
  type FaultStoreKind,
} from './fault-stores.js';
import {
  between,
  checkLog,
  killHard,
  onLines,
  seededRandom,
  sleep,
  spawnScript,
  startServerChild,
  tempDir,
  verifyCli,
  waitForLine,
  type FaultResult,
  type LogCheck,
} from './support.js';

const MEMORY = 'kill-trials';
const TARGET = '0 acknowledged events lost, 0 duplicates, verify passes';

interface Totals {
  acknowledged: number;
  lost: number;
  duplicates: number;
  verifyFailures: number;
  firstFailure: string;
}

const noTotals = (): Totals => ({
  acknowledged: 0,
  lost: 0,
  duplicates: 0,
  verifyFailures: 0,
  firstFailure: '',
});

function tally(totals: Totals, check: LogCheck, trial: number): void {
  totals.lost += check.lost;
  totals.duplicates += check.duplicates;
  if (check.verify !== 'ok') totals.verifyFailures += 1;
  if (totals.firstFailure === '' && (check.lost || check.duplicates || check.verify !== 'ok')) {
    totals.firstFailure = `trial ${trial}: lost ${check.lost}, duplicates ${check.duplicates}, verify ${check.verify}`;
  }
}

async function finish(
  name: string,
  trials: number,
  store: FaultStore,
  totals: Totals,
  extra: Record<string, number | string>,
): Promise<FaultResult> {
  const cli = await verifyCli(store.cli);
  // The read models (SQLite: in the same file and transaction; EventStoreDB: the server's file,
  // caught up on open) must hold each stored item once after every crash (messages + documents =
  // events; these trials write nothing else).
  const memledger = store.openMemledger();
  const page = await (await memledger.memory(MEMORY)).statePage({ limit: 1 });
  const readModelItems = page.totals.messages + page.totals.documents;
  await memledger.close();
  const logEvents = (await checkLog(store.open(), MEMORY, new Set())).events;
  const readModelMismatch = readModelItems === logEvents ? 0 : 1;
  const passed =
    readModelMismatch === 0 &&
    totals.lost === 0 &&
    totals.duplicates === 0 &&
    totals.verifyFailures === 0 &&
    cli.code === 0 &&
    totals.acknowledged > 0;
  return {
    name,
    size: `${trials} trials`,
    target: TARGET,
    passed,
    summary: `${totals.acknowledged} acknowledged, ${totals.lost} lost, ${totals.duplicates} duplicates, verify failures ${totals.verifyFailures}, memledger verify: ${cli.output.split('\n')[0] ?? ''}`,
    figures: {
      trials,
      ...totals,
      ...extra,
      readModelItems,
      logEvents,
      readModelMismatch,
      verifyCliExit: cli.code,
      verifyCliOutput: cli.output,
    },
  };
}

/** kill -9 of a library writer (`openMemledger` over SQLite) mid-append, `trials` times. */
export async function killLibraryWriter(trials: number, seed = 1): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir('kill-lib');
  const path = join(temp.dir, 'memledger.db');
  const store = sqliteFaultStore(path);
  const acknowledged = new Set<string>();
  const totals = noTotals();
  try {
    for (let trial = 0; trial < trials; trial++) {
      const synchronous = trial % 2 === 0 ? 'FULL' : 'NORMAL';
      const child = spawnScript('writer.child.ts', [path, synchronous, MEMORY, '100000']);
      let ready = false;
      onLines(child, (line) => {
        if (line === 'ready') ready = true;
        else if (ready) acknowledged.add(line);
      });
      await waitForLine(child, /^ready$/);
      await sleep(between(random, 20, 400));
      await killHard(child);
      totals.acknowledged = acknowledged.size;
      tally(totals, await checkLog(store.open(), MEMORY, acknowledged), trial);
    }
    return await finish('kill-sqlite-library', trials, store, totals, {});
  } finally {
    temp.remove();
  }
}

/**
 * kill -9 of the HTTP server mid-append (4 clients posting with their own ids), `trials` times, on
 * a SQLite file or on EventStoreDB (`kind`).
 */
export async function killHttpServer(
  trials: number,
  kind: FaultStoreKind = 'sqlite',
  seed = 2,
): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir(`kill-http-${kind}`);
  const store = await faultStore(kind, temp.dir);
  const acknowledged = new Set<string>();
  const totals = noTotals();
  let unexpectedStatuses = 0;
  try {
    for (let trial = 0; trial < trials; trial++) {
      const synchronous = trial % 2 === 0 ? 'FULL' : 'NORMAL';
      const server = await startServerChild(store.serverConfig({ synchronous }));
      let killed = false;
      const base = `${server.url}/api/memories/${MEMORY}`;
      const client = async (n: number) => {
        for (let i = 0; !killed && i < 100_000; i++) {
          const id = uuidv7();
          const document = (i + n) % 5 === 4;
          const body = document
            ? { id, name: `doc ${i}`, text: `document ${i} from client ${n}` }
            : { id, speaker: `client-${n}`, content: `message ${i} ${id}` };
          try {
            const response = await fetch(`${base}/${document ? 'documents' : 'messages'}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
              signal: AbortSignal.timeout(10_000),
            });
            await response.arrayBuffer();
            if (response.status === 201) acknowledged.add(id);
            else unexpectedStatuses += 1;
          } catch {
            return; // the server is gone: whatever was in flight is unacknowledged
          }
        }
      };
      const clients = [0, 1, 2, 3].map(client);
      await sleep(between(random, 50, 600));
      killed = true;
      await killHard(server.child);
      await Promise.all(clients);
      totals.acknowledged = acknowledged.size;
      tally(totals, await checkLog(store.open(), MEMORY, acknowledged), trial);
    }
    const name = kind === 'sqlite' ? 'kill-sqlite-http' : 'kill-esdb-http';
    return await finish(name, trials, store, totals, { unexpectedStatuses });
  } finally {
    await store.close();
    temp.remove();
  }
}
