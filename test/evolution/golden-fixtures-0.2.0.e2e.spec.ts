/**
 * The golden fixtures written by memledger 0.2.0 (test/fixtures/README.md): a sealed SQLite file
 * with its key store, an EventStoreDB stream dump with its key store, and JSON Lines exports,
 * each read by today's code — copies in a temporary folder, never the committed files — with
 * the fixed test master key: replayed to the state 0.2.0 computed (erased items as markers,
 * every other word readable), verified, continued at the next seq, and every erased item still
 * unreadable (its key `'erased'` in the key store, a read giving the marker).
 */
import { jest } from '@jest/globals';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreDBClient } from '@eventstore/db-client';
import {
  EVENT_TYPES,
  erasedForm,
  replay,
  type EventKind,
  type MemoryState,
  type Sequenced,
} from '../../src/core/index.js';
import { openSqliteKeyStore, type KeyStore } from '../../src/keys/index.js';
import { decodeJsonEvent } from '../../src/store/codec.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { openStore } from '../../src/store/open-store.js';
import { sealedStore } from '../../src/store/sealed/sealed-store.js';
import { buildOnce, runCli, tempWorkspace } from '../cli/cli-harness.js';
import { stateOf } from '../store/sqlite/sqlite-files.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import { loadStreamDump, readStreamDump } from '../support/esdb-stream-dump.js';
import {
  FIXTURE_MASTER_KEY_BASE64,
  fixtureMasterKey,
  nextMessage,
} from '../fixtures/fixture-logs-0.2.0.js';
import { eventAsReadToday, stateAsReadToday } from '../support/as-read-today.js';

jest.setTimeout(180_000);

const fixture = (name: string) => join(import.meta.dirname, '..', 'fixtures', name);
/** The states 0.2.0 computed, as this release reads the same logs (src/core/versions.ts). */
const expectedStates = (name: string) =>
  stateAsReadToday(
    JSON.parse(readFileSync(fixture(name), 'utf8')) as MemoryState,
  ) as unknown as Record<string, MemoryState>;
/** A value as plain JSON, for comparison with a committed one. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const countOf = (state: MemoryState) => (state.lastSeq ?? -1) + 1;
/** What `memledger verify --all` prints for a sound log holding `state`. */
const okLine = (memoryId: string, state: MemoryState) => {
  const erased = Object.keys(state.erased).length;
  return (
    `${memoryId}: ok: ${countOf(state)} events, last seq ${state.lastSeq}` +
    (erased === 0 ? '' : `, ${erased} erased items unreadable`)
  );
};
/** The environment that gives the binary the fixtures' master key. */
const keyEnv = { MEMLEDGER_MASTER_KEY: FIXTURE_MASTER_KEY_BASE64 };

const workspace = tempWorkspace();
let copies = 0;
/** Copies fixture files into a fresh folder of the workspace; returns their paths there. */
function copyFixtures(...names: string[]): string[] {
  const dir = join(workspace.dir, `copy-${copies++}`);
  return names.map((name) => {
    const path = join(dir, name);
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixture(name), path);
    return path;
  });
}

const openKeys = (path: string): KeyStore =>
  openSqliteKeyStore(path, { masterKey: fixtureMasterKey(), create: false });

/**
 * The checks every sealed fixture store passes: each memory replays to the state 0.2.0
 * computed; each erased item's key is `'erased'` and a read of it gives the marker; content
 * deleted but not erased is still readable by id; a new append continues at the next seq and
 * reads back in plain words.
 */
async function checkSealedStore(
  store: MemoryStore,
  keys: KeyStore,
  expected: Record<string, MemoryState>,
): Promise<void> {
  expect(await store.memoryIds()).toEqual(Object.keys(expected).sort());
  for (const [memoryId, state] of Object.entries(expected)) {
    expect(await stateOf(store, memoryId)).toEqual(state);
    const log = store.log(memoryId);
    const erasedIds = Object.keys(state.erased);
    const stored = keys.lookup(memoryId, erasedIds);
    for (const id of erasedIds) {
      expect([id, stored.get(id)]).toEqual([id, 'erased']);
      expect(await log.get(id)).toMatchObject({ id, erased: true });
    }
    for (const id of Object.keys(state.deleted).filter((id) => !(id in state.erased))) {
      const item = [...state.messages, ...state.documents].find((e) => e.id === id)!;
      expect(asJson((await log.get(id))!)).toEqual(item);
      expect(item).not.toHaveProperty('erased');
    }
    const [next] = await log.append([nextMessage()]);
    expect(next!.seq).toBe(countOf(state));
    expect(await log.get(next!.id)).toMatchObject({ content: 'written after 0.2.0 ✓' });
  }
}

beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('SQLite file written by memledger 0.2.0, sealed', () => {
  const expected = expectedStates('sqlite-0.2.0.expected.json');
  const copy = () => {
    const [db, keys] = copyFixtures('sqlite-0.2.0.db', 'sqlite-0.2.0.db.keys');
    return { db: db!, keys: keys! };
  };

  it('holds no plain word of its content: every message and document is sealed', () => {
    const bytes = readFileSync(fixture('sqlite-0.2.0.db'));
    const words = Object.values(expected).flatMap((state) => [
      ...state.messages.flatMap((m) => (m.content === null ? [] : [m.content])),
      ...state.documents.flatMap((d) => (d.text === null ? [] : [d.text])),
    ]);
    // Every item's words, but the erased items' (4 in all).
    const items = Object.values(expected).flatMap((s) => [...s.messages, ...s.documents]);
    const erased = Object.values(expected).flatMap((s) => Object.keys(s.erased));
    expect(erased).toHaveLength(4);
    expect(words).toHaveLength(items.length - erased.length);
    expect(words.filter((word) => bytes.includes(Buffer.from(word, 'utf8')))).toEqual([]);
  });

  it('passes memledger verify --all (erasures checked) and replays every memory to the state 0.2.0 recorded', async () => {
    const { db } = copy();
    const verify = await runCli(['--db', db, 'verify', '--all'], keyEnv);
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout.trim().split('\n')).toEqual(
      Object.entries(expected).map(([id, state]) => okLine(id, state)),
    );
    for (const [memoryId, state] of Object.entries(expected)) {
      const replayed = await runCli(['--db', db, '--memory', memoryId, 'replay', '--json'], keyEnv);
      expect(replayed).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(replayed.stdout)).toEqual(state);
    }
  });

  it('opens with its key store: states, erased keys, kept deletions, and the next seq', async () => {
    const { db, keys: keysPath } = copy();
    const keys = openKeys(keysPath);
    const store = await openStore({
      kind: 'sqlite',
      path: db,
      keys: { kind: 'key-store', keyStore: keys },
    });
    try {
      await checkSealedStore(store, keys, expected);
    } finally {
      await store.close();
    }
    // After the appends, the binary still finds the file sound and the erased items gone.
    const verify = await runCli(['--db', db, 'verify', '--all'], keyEnv);
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout.trim().split('\n')).toEqual(
      Object.entries(expected).map(([id, state]) =>
        okLine(id, { ...state, lastSeq: state.lastSeq! + 1 }),
      ),
    );
  });
});

describe('EventStoreDB streams written by memledger 0.2.0, sealed', () => {
  const expected = expectedStates('esdb-0.2.0.expected.json');
  let server: EsdbTestServer;
  let client: EventStoreDBClient;
  beforeEach(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
    await loadStreamDump(client, readStreamDump(fixture('esdb-0.2.0.json')));
  });
  afterEach(async () => {
    await client.dispose();
    await server.close();
  });

  it('record the schema version of every event in its metadata', () => {
    const dump = readStreamDump(fixture('esdb-0.2.0.json'));
    for (const events of Object.values(dump.streams)) {
      for (const event of events) {
        const metadata = event.metadata as Record<string, unknown>;
        expect([event.id, Object.keys(metadata), typeof metadata.schemaVersion]).toEqual([
          event.id,
          ['schemaVersion'],
          'number',
        ]);
        if (event.type === 'Message' || event.type === 'Document') {
          expect(event.data).toHaveProperty('sealed');
        }
      }
    }
  });

  it('open with their key store: states, erased keys, kept deletions, and the next seq', async () => {
    const [keysPath] = copyFixtures('esdb-0.2.0.keys');
    const keys = openKeys(keysPath!);
    const store = sealedStore(openEventStoreDbStore({ client }), keys);
    try {
      await checkSealedStore(store, keys, expected);
    } finally {
      await store.close();
    }
  });

  it('pass memledger verify --all with their key store (erasures checked)', async () => {
    const [keysPath] = copyFixtures('esdb-0.2.0.keys');
    const verify = await runCli(['--eventstore', server.connectionString, 'verify', '--all'], {
      ...keyEnv,
      MEMLEDGER_KEY_STORE: keysPath!,
      MEMLEDGER_ESDB_INDEX: join(workspace.dir, `esdb-verify-${copies}`, 'index.db'),
    });
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout.trim().split('\n')).toEqual(
      Object.entries(expected).map(([id, state]) => okLine(id, state)),
    );
  });
});

/**
 * JSON Lines exported by 0.2.0. `memledger import` refuses an erased item's marker today
 * (VALIDATION_FAILED: words null, unknown key `erased`; a known gap of import), so these files
 * are checked line by line with the codec every import goes through: each line decodes in the
 * schema version it records, a marker is the erasure form of a valid event with the same
 * fields, and the lines replay to the state 0.2.0 computed.
 */
describe('JSON Lines exported by memledger 0.2.0', () => {
  const expected = expectedStates('jsonl-0.2.0.expected.json');

  it.each(Object.keys(expected))(
    '%s: every line decodes in its recorded version and the lines replay to the state 0.2.0 computed',
    (file) => {
      const lines = readFileSync(fixture(file), 'utf8').split('\n').slice(0, -1);
      expect(lines).toHaveLength(countOf(expected[file]!));
      const events = lines.map((text, n): Sequenced => {
        const line = JSON.parse(text) as Record<string, unknown>;
        const { version, seq, ...fields } = line;
        expect([n, seq, typeof version]).toEqual([n, n, 'number']);
        const type = EVENT_TYPES[fields.kind as EventKind];
        if (fields.erased !== true) {
          const decoded = decodeJsonEvent(type, JSON.stringify(fields), n, file, version);
          expect(asJson(decoded)).toEqual(eventAsReadToday({ ...fields, seq }));
          return decoded;
        }
        // A marker: the same fields with words in place of the nulls make a valid event, and
        // its erasure form is the line again.
        const { erased: _erased, ...rest } = fields;
        const words =
          fields.kind === 'message' ? { content: 'words' } : { name: 'words', text: 'words' };
        const decoded = decodeJsonEvent(
          type,
          JSON.stringify({ ...rest, ...words }),
          n,
          file,
          version,
        );
        expect(asJson(erasedForm(decoded))).toEqual(eventAsReadToday({ ...fields, seq }));
        return eventAsReadToday({ ...fields, seq }) as unknown as Sequenced;
      });
      expect(asJson(replay(events))).toEqual(expected[file]);
    },
  );

  it.each(Object.keys(expected))(
    '%s: imports through the binary into a sealed file (erased items arrive erased), replays to the state 0.2.0 computed and verifies',
    async (file) => {
      const db = join(workspace.dir, `import-${copies++}.db`);
      const imported = await runCli(['--db', db, 'import', fixture(file)]);
      expect(imported).toMatchObject({ code: 0, stderr: '' });
      const replayed = await runCli(['--db', db, 'replay', '--json']);
      expect(JSON.parse(replayed.stdout)).toEqual(expected[file]);
      expect(await runCli(['--db', db, 'verify'])).toMatchObject({ code: 0 });
    },
  );
});
