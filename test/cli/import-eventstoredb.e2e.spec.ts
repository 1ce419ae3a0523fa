/**
 * `memledger import` into EventStoreDB (the in-process test server, reached by the real binary
 * over gRPC) as into SQLite: batches cut to the server's 1 MiB maximum append size, idempotent
 * re-runs, the same state on both stores, and an event too large for EventStoreDB refused up
 * front naming its line and the limit.
 */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import { LIMITS } from '../../src/core/index.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import {
  buildOnce,
  idOf,
  parseJsonl,
  runCli,
  tempWorkspace,
  writeJsonl,
  type CliRun,
} from './cli-harness.js';

jest.setTimeout(300_000);

const workspace = tempWorkspace();
let server: EsdbTestServer;

beforeAll(async () => {
  buildOnce();
  server = await startEsdbTestServer();
});
afterAll(async () => {
  await server.close();
  workspace.cleanup();
});

/** `memledger` on the test server, with its own id index file for `memory`. */
const onEsdb = (memory: string, ...args: string[]): Promise<CliRun> =>
  runCli(['--eventstore', server.connectionString, '--memory', memory, ...args], {
    MEMLEDGER_ESDB_INDEX: join(workspace.dir, `${memory}-index.db`),
  });
/** `memledger` on a SQLite file of the workspace. */
const onSqlite = (db: string, ...args: string[]): Promise<CliRun> =>
  runCli(['--db', join(workspace.dir, db), ...args]);

/** `count` messages of about 4 KB each, in the wire format. */
function messagesOf4Kb(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, n) => ({
    kind: 'message',
    id: idOf(n + 1),
    timestamp: new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(),
    sessionId: `s${n % 7}`,
    speaker: n % 2 === 0 ? 'user' : 'assistant',
    content: `message ${n}: ${'lorem ipsum dolor sit amet '.repeat(152)}`,
  }));
}

describe('memledger import into EventStoreDB', () => {
  it('imports 10,000 messages of 4 KB in batches under 1 MiB, a re-run writes nothing, and SQLite ends in the same state', async () => {
    const file = writeJsonl(join(workspace.dir, 'big.jsonl'), messagesOf4Kb(10_000));

    const first = await onEsdb('big', 'import', '--no-progress', file);
    const again = await onEsdb('big', 'import', '--no-progress', file);
    const sqlite = await onSqlite('big.db', 'import', '--no-progress', file);
    const [fromEsdb, fromSqlite] = await Promise.all([
      onEsdb('big', 'export'),
      onSqlite('big.db', 'export'),
    ]);

    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(
      'imported 10000 events into memory big (seq 0..9999); 0 already present\n',
    );
    expect(again.stdout).toBe(
      'nothing to import into memory big: all 10000 events are already in the log\n',
    );
    expect(sqlite.code).toBe(0);
    expect(fromEsdb.code).toBe(0);
    expect(parseJsonl(fromEsdb.stdout)).toHaveLength(10_000);
    expect(fromEsdb.stdout).toBe(fromSqlite.stdout);
  });

  it('refuses a document larger than EventStoreDB accepts before writing anything, naming the line and the limit, while SQLite imports it', async () => {
    const big = {
      kind: 'document',
      id: idOf(900),
      timestamp: '2025-02-01T00:00:00Z',
      name: 'big.txt',
      text: 'd'.repeat(2_000_000),
    };
    const file = writeJsonl(join(workspace.dir, 'doc.jsonl'), [...messagesOf4Kb(3), big]);

    const esdb = await onEsdb('doc', 'import', file);
    const sqlite = await onSqlite('doc.db', 'import', file);

    expect(esdb.code).toBe(1);
    expect(esdb.stderr).toContain(
      `line 4: (root): Event ${idOf(900)} (document) is 2,000,`, // its exact size follows
    );
    // Content is sealed by default, and sealed words take about 4/3 of their plain size: the
    // import measures plain events against the part of the server's limit that fits once sealed.
    const sealedLimit = Math.floor((LIMITS.eventBytes.eventstoredb - 64) * 0.75);
    expect(esdb.stderr).toContain(
      `accepts events of at most ${sealedLimit.toLocaleString('en-US')} bytes`,
    );
    expect(esdb.stderr).toMatch(
      /error \[EVENT_TOO_LARGE\]: .*1 invalid line; nothing was imported/,
    );
    expect((await onEsdb('doc', 'export')).stdout).toBe('');
    expect(sqlite.stdout).toBe(
      'imported 4 events into memory default (seq 0..3); 0 already present\n',
    );
  });
});
