/**
 * The id index file writes and commits a burst of appends' rows together (eventstoredb.id-index
 * tails, src/db/delayed-commit.ts): another connection sees none of a burst before its commit
 * and all of it after; closing commits at once; a crash that loses the uncommitted rows costs the next catch-up a read, never a wrong
 * answer; and a store stops delaying once another connection commits to its file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createMessage, type Sequenced } from '../../../src/core/index.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { readAll, rejectionOf } from '../../support/collect.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';
import { message } from '../../support/events.js';

const child = join(import.meta.dirname, '..', '..', 'support', 'esdb-index-writer-child.ts');
/** Longer than any test: a write of these stores commits only when something makes it. */
const NEVER_MS = 600_000;

let server: EsdbTestServer;
let dir: string;
let file: string;
const stores: MemoryStore[] = [];

beforeEach(async () => {
  server = await startEsdbTestServer();
  dir = mkdtempSync(join(tmpdir(), 'memledger-esdb-delayed-'));
  file = join(dir, 'eventstoredb-index.db');
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (idIndexCommitDelayMs: number) => {
  const store = openEventStoreDbStore(
    { connectionString: server.connectionString },
    { idIndex: file, idIndexCommitDelayMs },
  );
  stores.push(store);
  return store;
};

/** The checkpoint of a stream as another connection reads the file (undefined: no row yet). */
function committedSeq(stream = 'memory-default'): number | null | undefined {
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare<[string], { last_seq: number | null }>(
        'SELECT last_seq FROM esdb_index_streams WHERE stream = ?',
      )
      .get(stream);
    return row === undefined ? undefined : row.last_seq;
  } finally {
    db.close();
  }
}

/** Runs the writer child until it printed `count` stored events, then kills it with SIGKILL. */
function writeAndKill(count: number): Promise<Sequenced[]> {
  return new Promise((resolve, reject) => {
    const args = [server.connectionString, file, String(count), String(NEVER_MS)];
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const stored: Sequenced[] = [];
    let buffered = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop()!;
      for (const line of lines) stored.push(JSON.parse(line) as Sequenced);
      if (stored.length >= count) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    // 'close', not 'exit': every line printed before the end is read by then.
    proc.on('close', () => resolve(stored));
  });
}

describe('EventStoreDB id index: delayed commit', () => {
  it('commits a burst of appends together: another connection sees none of its rows before the commit, and closing the store commits them', async () => {
    const store = open(NEVER_MS);
    for (const content of ['a', 'b', 'c']) await store.log().append([message(content)]);
    // The memory's row is registered on its own; its checkpoint moves with the delayed rows.
    expect(committedSeq()).toBeNull();

    await store.close();

    expect(committedSeq()).toBe(2);
  });

  it('commits on its own once the delay has passed, with no further write', async () => {
    const store = open(20);
    await store.log().append([message('a')]);
    const deadline = Date.now() + 5_000;
    while (committedSeq() !== 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(committedSeq()).toBe(0);
  });

  it('loses only derived rows in a crash before the commit: the reopened store reads those events from the stream, answers a retry with the stored event and refuses other content under a stored id', async () => {
    const written = await writeAndKill(3);
    expect(written.map((event) => event.seq)).toEqual([0, 1, 2]);
    expect(committedSeq() ?? null).toBeNull();

    const log = open(0).log();
    const { seq: _seq, ...first } = written[0]!;
    const retried = await log.append([first as never]);
    const conflict = await rejectionOf(
      log.append([createMessage({ id: first.id, speaker: 'child', content: 'something else' })]),
    );
    const [next] = await log.append([message('after the crash')]);

    expect(retried).toEqual([written[0]]);
    expect(conflict.code).toBe('ID_CONFLICT');
    expect(next!.seq).toBe(3);
    expect((await readAll(log)).map((event) => event.id)).toEqual([
      ...written.map((event) => event.id),
      next!.id,
    ]);
    expect(committedSeq()).toBe(3);
  });

  it('stops delaying once another connection commits to its file: instances sharing a file never wait for each other', async () => {
    const first = open(NEVER_MS);
    const second = open(NEVER_MS);
    await first.log().append([message('a')]);
    expect(committedSeq()).toBeNull();

    // The second store writes without waiting: the first's open transaction commits before it
    // (this thread could not commit it while waiting for its lock), and the second, having seen
    // a commit not its own, commits its append at once. The first still holds its row of 'a'.
    await second.log('other').append([message('b')]);
    expect(committedSeq('memory-other')).toBe(0);
    expect(committedSeq()).toBeNull();

    // The first sees the second's commit: it writes what it held, then each append at once.
    await first.log().append([message('c')]);
    expect(committedSeq()).toBe(1);
    await first.log().append([message('d')]);
    expect(committedSeq()).toBe(2);
  });
});
