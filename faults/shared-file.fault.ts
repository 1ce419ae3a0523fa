/**
 * Two servers on one store — a SQLite file, or (`shared-esdb`) one EventStoreDB with an id index
 * and read-model file per server, as two application instances keep them — four clients (two per server) for `durationMs`: each writes
 * messages and documents, deletes some of its own items, and runs the auditable recall (which
 * the other server's writes keep moving under it). Target: every recall answers 201 with exactly
 * the items its Recall event names, every write is acknowledged and stored once, and
 * `memledger verify` finds no invariant violation (a recall of deleted content is one).
 */
import { faultStore, type FaultStoreKind } from './fault-stores.js';
import { v7 as uuidv7 } from 'uuid';
import {
  checkLog,
  postJson,
  seededRandom,
  startServerChild,
  stopServerChild,
  tempDir,
  verifyCli,
  type FaultResult,
} from './support.js';

const MEMORY = 'shared';

interface RecallAnswer {
  readonly recall?: { readonly recalled?: readonly string[] };
  readonly items?: readonly { readonly id: string }[];
}

/** Two servers, four clients, one file, for `durationMs`. */
export async function sharedFile(
  durationMs: number,
  kind: FaultStoreKind = 'sqlite',
  seed = 5,
): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir(`shared-${kind}`);
  const fault = await faultStore(kind, temp.dir);
  const servers = [
    await startServerChild(fault.serverConfig({ pollMs: 20, instance: 'a' })),
    await startServerChild(fault.serverConfig({ pollMs: 20, instance: 'b' })),
  ];
  const acknowledged = new Set<string>();
  let recalls = 0;
  let failedRecalls = 0;
  let recallConflicts = 0;
  let mismatchedRecalls = 0;
  let failedWrites = 0;
  const failures: string[] = [];
  const deadline = Date.now() + durationMs;
  const client = async (n: number) => {
    const base = `${servers[n % 2]!.url}/api/memories/${MEMORY}`;
    const mine: string[] = [];
    for (let i = 0; Date.now() < deadline && i < 100_000; i++) {
      const r = random();
      const id = uuidv7();
      let route: string;
      let body: Record<string, unknown>;
      if (r < 0.25) {
        const { status, json } = await postJson(`${base}/recall`, {
          query: `topic ${i % 7}`,
          limit: 5,
        });
        recalls += 1;
        const answer = json as RecallAnswer;
        const items = (answer.items ?? []).map((item) => item.id).join();
        if (status !== 201) {
          failedRecalls += 1;
          // 409 APPEND_CONFLICT: the recall gave up racing the other server; it wrote nothing.
          if ((json as { code?: unknown }).code === 'APPEND_CONFLICT') recallConflicts += 1;
          if (failures.length < 5)
            failures.push(`recall ${status} ${JSON.stringify(json).slice(0, 200)}`);
        } else if (items !== (answer.recall?.recalled ?? []).join()) mismatchedRecalls += 1;
        continue;
      } else if (r < 0.35 && mine.length > 0) {
        route = 'deletions';
        body = {
          id,
          targets: [mine.splice(Math.floor(random() * mine.length), 1)[0]],
          reason: 'cleanup',
        };
      } else if (r < 0.5) {
        route = 'documents';
        body = { id, name: `doc ${n}.${i}`, text: `topic ${i % 7} document from client ${n}` };
      } else {
        route = 'messages';
        body = {
          id,
          speaker: `client-${n}`,
          content: `topic ${i % 7} message ${i} from client ${n}`,
        };
      }
      const { status, json } = await postJson(`${base}/${route}`, body);
      if (status === 201) {
        acknowledged.add(id);
        if (route !== 'deletions') mine.push(id);
      } else {
        failedWrites += 1;
        if (failures.length < 5)
          failures.push(`${route} ${status} ${JSON.stringify(json).slice(0, 200)}`);
      }
    }
  };
  try {
    await Promise.all([0, 1, 2, 3].map(client));
  } finally {
    await Promise.all(servers.map(stopServerChild));
  }
  try {
    const check = await checkLog(fault.open(), MEMORY, acknowledged);
    const cli = await verifyCli(fault.cli);
    const violations = (check.verify === 'ok' ? 0 : 1) + (cli.code === 0 ? 0 : 1);
    const passed =
      failedRecalls === 0 &&
      mismatchedRecalls === 0 &&
      failedWrites === 0 &&
      violations === 0 &&
      check.lost === 0 &&
      check.duplicates === 0 &&
      recalls > 0;
    return {
      name: kind === 'sqlite' ? 'shared-file' : 'shared-esdb',
      size: `2 servers, 4 clients, ${durationMs / 1000} s`,
      target: '0 failed recalls, 0 invariant violations',
      passed,
      summary: `${recalls} recalls, ${failedRecalls} failed (${recallConflicts} APPEND_CONFLICT), ${mismatchedRecalls} mismatched; ${acknowledged.size} writes, ${failedWrites} failed, ${check.lost} lost, ${check.duplicates} duplicates; memledger verify: ${cli.output.split('\n')[0] ?? ''}`,
      figures: {
        seconds: durationMs / 1000,
        recalls,
        failedRecalls,
        recallConflicts,
        mismatchedRecalls,
        writes: acknowledged.size,
        failedWrites,
        lost: check.lost,
        duplicates: check.duplicates,
        events: check.events,
        invariantViolations: violations,
        verifyCliOutput: cli.output,
        failures: failures.join('\n'),
      },
    };
  } finally {
    await fault.close();
    temp.remove();
  }
}
