/** verify on a tampered SQLite file, and the one-line error format of the binary. */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  buildOnce,
  idOf,
  runCli,
  sampleEvents,
  tempWorkspace,
  writeJsonl,
  type CliRun,
} from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
let nextDb = 0;

/** A database holding the sample log (seq 0..4; the deletion at seq 4 removes idOf(1)). */
async function sampleDb(): Promise<{ db: string; cli: (...args: string[]) => Promise<CliRun> }> {
  const db = join(workspace.dir, `db-${nextDb++}.db`);
  const cli = (...args: string[]) => runCli(['--db', db, ...args]);
  const imported = await cli('import', writeJsonl(join(workspace.dir, 's.jsonl'), sampleEvents()));
  expect(imported.code).toBe(0);
  return { db, cli };
}

/** Inserts a row behind the store's back (the triggers forbid UPDATE and DELETE, not INSERT). */
function insertRow(db: string, seq: number, type: string, payload: object | string): void {
  const sqlite = new Database(db);
  try {
    const id = typeof payload === 'string' ? idOf(900 + seq) : (payload as { id: string }).id;
    sqlite
      .prepare('INSERT INTO events (memory_id, seq, id, type, payload) VALUES (?, ?, ?, ?, ?)')
      .run(
        'default',
        seq,
        id,
        type,
        typeof payload === 'string' ? payload : JSON.stringify(payload),
      );
  } finally {
    sqlite.close();
  }
}

const recallOf = (n: number, recalled: string[]) => ({
  kind: 'recall',
  id: idOf(n),
  timestamp: '2024-03-04T00:00:00.000Z',
  sessionId: null,
  source: 'tamper',
  actor: null,
  query: 'api key',
  recalled,
});

beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('memledger verify on a tampered log', () => {
  it('finds a recall of deleted content and exits non-zero', async () => {
    const { db, cli } = await sampleDb();
    insertRow(db, 5, 'Recall', recallOf(60, [idOf(1)]));
    const run = await cli('verify');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe(
      `violation [LOG_INVARIANT_VIOLATED] at seq 5: Event ${idOf(60)} at seq 5 recalls ${idOf(1)}, which was already deleted.\n`,
    );
  });

  it('finds a gap in the seqs', async () => {
    const { db, cli } = await sampleDb();
    insertRow(db, 7, 'Recall', recallOf(61, [idOf(2)]));
    const run = await cli('verify');
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^violation \[REPLAY_ORDER\] at seq 7: .*seq 5 was expected \(after a gap\)\.\n$/,
    );
  });

  it('finds a stored event the schemas reject', async () => {
    const { db, cli } = await sampleDb();
    insertRow(db, 5, 'Message', '{"kind":"message","id":"not-a-uuid"}');
    const run = await cli('verify');
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^violation \[EVENT_DECODE_FAILED\] at seq 5: Stored event at .* is not a valid Message: /,
    );
  });

  it('checks every memory with --all and names each', async () => {
    const { db, cli } = await sampleDb();
    await cli(
      '--memory',
      'clean',
      'import',
      writeJsonl(join(workspace.dir, 'c.jsonl'), [sampleEvents()[1]!]),
    );
    insertRow(db, 5, 'Recall', recallOf(62, [idOf(1)]));
    const run = await cli('verify', '--all');
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('clean: ok: 1 events, last seq 0\n');
    expect(run.stdout).toContain('default: violation [LOG_INVARIANT_VIOLATED] at seq 5: ');
  });
});

describe('error output', () => {
  it('prints expected errors as one line "error [CODE]: message" without a stack trace', async () => {
    const missing = join(workspace.dir, 'nothing-here.db');
    const run = await runCli(['--db', missing, 'replay']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `error [STORE_UNAVAILABLE]: SQLite file ${missing} does not exist; pass --db or set MEMLEDGER_DB.\n`,
    });
  });

  it('reads the database path from MEMLEDGER_DB', async () => {
    const { db } = await sampleDb();
    const run = await runCli(['verify'], { MEMLEDGER_DB: db });
    expect(run.stdout).toBe('ok: 5 events, last seq 4\n');
  });

  it('rejects an unknown command with usage help and exit 1', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown command 'frobnicate'");
  });

  it('documents every command in --help', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const name of ['serve', 'import', 'export', 'replay', 'audit', 'verify']) {
      expect(run.stdout).toContain(`  ${name} `);
    }
    expect(run.stdout).toContain('--db <path>');
    expect((await runCli(['import', '--help'])).stdout).toContain('line N: <path>: <rule>');
  });
});
