/**
 * kill -9 during appends on SQLite: a library writer (faults/writer.child.ts) and the HTTP
 * server (faults/server.child.ts) are killed at a random moment while appending, trial after
 * trial on the same file (each restart recovers the previous crash). After each kill every
 * acknowledged id must be stored exactly once, no id twice, and the log must fold (the code of
 * `memledger verify`); the real `memledger verify --all` runs on the file at the end.
 * Trials alternate `synchronous` FULL and NORMAL (both promise to survive a process crash).
 */
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { openMemledger } from '../src/memory/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import {
  between,
  checkSqliteLog,
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
  path: string,
  totals: Totals,
  extra: Record<string, number | string>,
): Promise<FaultResult> {
  const cli = await verifyCli(path);
  // The read models live in the same file and transaction: after every crash they must hold
  // each stored item once (messages + documents = events; these trials write nothing else).
  const memledger = openMemledger({ store: openSqliteStore({ path }) });
  const page = await (await memledger.memory(MEMORY)).statePage({ limit: 1 });
  const readModelItems = page.totals.messages + page.totals.documents;
  await memledger.close();
  const logEvents = (await checkSqliteLog(path, MEMORY, new Set())).events;
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
  const acknowledged = new Set<string>();
  const totals: Totals = {
    acknowledged: 0,
    lost: 0,
    duplicates: 0,
    verifyFailures: 0,
    firstFailure: '',
  };
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
      tally(totals, await checkSqliteLog(path, MEMORY, acknowledged), trial);
    }
    return await finish('kill-sqlite-library', trials, path, totals, {});
  } finally {
    temp.remove();
  }
}

/** kill -9 of the HTTP server mid-append (4 clients posting with their own ids), `trials` times. */
export async function killHttpServer(trials: number, seed = 2): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir('kill-http');
  const path = join(temp.dir, 'memledger.db');
  const acknowledged = new Set<string>();
  const totals: Totals = {
    acknowledged: 0,
    lost: 0,
    duplicates: 0,
    verifyFailures: 0,
    firstFailure: '',
  };
  let unexpectedStatuses = 0;
  try {
    for (let trial = 0; trial < trials; trial++) {
      const synchronous = trial % 2 === 0 ? 'FULL' : 'NORMAL';
      const server = await startServerChild({ store: { kind: 'sqlite', path, synchronous } });
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
      tally(totals, await checkSqliteLog(path, MEMORY, acknowledged), trial);
    }
    return await finish('kill-sqlite-http', trials, path, totals, { unexpectedStatuses });
  } finally {
    temp.remove();
  }
}
