/**
 * The golden fixtures written by memledger 0.1.0 (test/fixtures/README.md): a SQLite file, JSON
 * Lines exports and an EventStoreDB stream dump, each opened or imported by today's code through
 * its public entry points (the `memledger` binary, the stores), replayed to the state 0.1.0
 * computed, verified, and continued at the next seq. The SQLite file's migration has its own
 * spec (test/store/sqlite/sqlite.migration.int.spec.ts).
 */
import { jest } from '@jest/globals';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreDBClient } from '@eventstore/db-client';
import type { MemoryState } from '../../src/core/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { buildOnce, runCli, tempWorkspace, writeJsonl } from '../cli/cli-harness.js';
import { stateOf } from '../store/sqlite/sqlite-files.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { loadStreamDump, readStreamDump } from '../support/esdb-stream-dump.js';
import { message } from '../support/events.js';
import { stateAsReadToday } from '../support/as-read-today.js';

jest.setTimeout(180_000);

const fixture = (name: string) => join(import.meta.dirname, '..', 'fixtures', name);
const expectedStates = (name: string) =>
  JSON.parse(readFileSync(fixture(name), 'utf8')) as Record<string, MemoryState>;
const countOf = (state: MemoryState) => (state.lastSeq ?? -1) + 1;
/**
 * A state 0.1.0 computed, as today's replay gives it: the same, plus the map of erased items
 * 0.1.0 did not have (empty: no 0.1.0 log holds an Erasure).
 */
const asToday = (state: MemoryState): MemoryState => stateAsReadToday({ ...state, erased: {} });
/** What `memledger verify --all` prints for a sound log holding `state`. */
const okLine = (memoryId: string, state: MemoryState) =>
  `${memoryId}: ok: ${countOf(state)} events, last seq ${state.lastSeq}`;

/** Appends one message to `memoryId` and returns its seq. */
async function appendOne(store: MemoryStore, memoryId: string): Promise<number> {
  const [stored] = await store.log(memoryId).append([message('written after 0.1.0 ✓')]);
  return stored!.seq;
}

/** An event written after 0.1.0's, in the wire format. */
const nextEvent = {
  kind: 'message',
  id: '0193c000-0000-7000-8000-000000000001',
  timestamp: '2026-12-01T00:00:00Z',
  speaker: 'user',
  content: 'written after 0.1.0 ✓',
};

const workspace = tempWorkspace();
beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('SQLite file written by memledger 0.1.0, through the binary', () => {
  const expected = expectedStates('sqlite-0.1.0.expected.json');

  it('passes memledger verify --all and replays every memory to the state 0.1.0 recorded', async () => {
    const db = join(workspace.dir, 'sqlite-0.1.0.db');
    copyFileSync(fixture('sqlite-0.1.0.db'), db);

    const verify = await runCli(['--db', db, 'verify', '--all']);
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout.trim().split('\n')).toEqual(
      Object.entries(expected).map(([id, state]) => okLine(id, state)),
    );
    for (const [memoryId, state] of Object.entries(expected)) {
      const replayed = await runCli(['--db', db, '--memory', memoryId, 'replay', '--json']);
      expect(replayed.code).toBe(0);
      expect(JSON.parse(replayed.stdout)).toEqual(asToday(state));
    }
  });
});

describe('JSON Lines exported by memledger 0.1.0', () => {
  const expected = expectedStates('jsonl-0.1.0.expected.json');
  const files = Object.keys(expected);

  it.each(files)(
    '%s imports into SQLite, replays to the state 0.1.0 computed, verifies and continues at the next seq',
    async (file) => {
      const state = expected[file]!;
      const db = join(workspace.dir, `${file}.db`);
      const cli = (...args: string[]) => runCli(['--db', db, '--memory', 'golden', ...args]);

      const imported = await cli('import', '--no-progress', fixture(file));
      expect(imported).toMatchObject({ code: 0, stderr: '' });
      expect(imported.stdout).toBe(
        `imported ${countOf(state)} events into memory golden (seq 0..${state.lastSeq}); 0 already present\n`,
      );
      expect(await cli('verify')).toMatchObject({
        code: 0,
        stdout: `ok: ${countOf(state)} events, last seq ${state.lastSeq}\n`,
      });
      expect(JSON.parse((await cli('replay', '--json')).stdout)).toEqual(asToday(state));
      // Importing the same file again writes nothing: every line is recognised as stored.
      expect((await cli('import', '--no-progress', fixture(file))).stdout).toBe(
        `nothing to import into memory golden: all ${countOf(state)} events are already in the log\n`,
      );

      // A new event continues the log (through the binary, which opens sealed content as it wrote it).
      const next = writeJsonl(join(workspace.dir, `${file}.next.jsonl`), [nextEvent]);
      expect((await cli('import', '--no-progress', next)).stdout).toBe(
        `imported 1 events into memory golden (seq ${countOf(state)}..${countOf(state)}); 0 already present\n`,
      );
      expect((await cli('verify')).stdout).toBe(
        `ok: ${countOf(state) + 1} events, last seq ${countOf(state)}\n`,
      );
    },
  );

  it('imports into EventStoreDB and replays to the same states', async () => {
    const server = await startEsdbTestServer();
    try {
      for (const [n, file] of files.entries()) {
        const cli = (...args: string[]) =>
          runCli(['--eventstore', server.connectionString, '--memory', `golden-${n}`, ...args], {
            MEMLEDGER_ESDB_INDEX: join(workspace.dir, `esdb-import-${n}`, 'index.db'),
          });
        expect(await cli('import', '--no-progress', fixture(file))).toMatchObject({
          code: 0,
          stderr: '',
        });
        expect(JSON.parse((await cli('replay', '--json')).stdout)).toEqual(
          asToday(expected[file]!),
        );
      }
    } finally {
      await server.close();
    }
  });
});

describe('EventStoreDB streams written by memledger 0.1.0', () => {
  const expected = expectedStates('esdb-0.1.0.expected.json');
  let server: EsdbTestServer;
  let client: EventStoreDBClient;
  beforeEach(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
    await loadStreamDump(client, readStreamDump(fixture('esdb-0.1.0.json')));
  });
  afterEach(async () => {
    await client.dispose();
    await server.close();
  });

  it('replay every memory to the state 0.1.0 computed and continue each at the next seq', async () => {
    const store = openEventStoreDbStore({ client });
    try {
      expect(await store.memoryIds()).toEqual(Object.keys(expected).sort());
      for (const [memoryId, state] of Object.entries(expected)) {
        expect(await stateOf(store, memoryId)).toEqual(asToday(state));
        expect(await appendOne(store, memoryId)).toBe(state.lastSeq! + 1);
      }
    } finally {
      await store.close();
    }
  });

  it('pass memledger verify --all', async () => {
    const verify = await runCli(['--eventstore', server.connectionString, 'verify', '--all'], {
      MEMLEDGER_ESDB_INDEX: join(workspace.dir, 'esdb-verify-index.db'),
    });
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout.trim().split('\n')).toEqual(
      Object.entries(expected).map(([id, state]) => okLine(id, state)),
    );
  });
});
