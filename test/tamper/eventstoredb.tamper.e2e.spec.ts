/**
 * Tampering with EventStoreDB: the memory's stream is written by the application on the
 * in-process test server, then a copy of it, tampered with, is loaded at the same revisions into
 * a server of its own (what restoring an edited copy of the database gives). `memledger verify
 * --eventstore <url> --checkpoint saved.note --vkey <key>` (the real binary, reading the stream
 * without the key store and the tree from the application's projection file) names the seq of
 * each tampering and exits 2.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventStoreDBClient,
  FORWARDS,
  START,
  jsonEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { openMemledger } from '../../src/memory/index.js';
import { openStore } from '../../src/store/open-store.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';
import {
  AUDITED,
  TAMPER_CASES,
  identity,
  logKey,
  writeHistory,
  type StoredRow,
} from './tamper-history.js';

jest.setTimeout(180_000);

const STREAM = `memory-${AUDITED}`;
let root: string;
let original: EsdbTestServer;
let rows: StoredRow[];
let run = 0;

/** The memory's stream as stored rows: data without id and kind, the schema version from metadata. */
async function readStream(server: EsdbTestServer): Promise<StoredRow[]> {
  const client = EventStoreDBClient.connectionString(server.connectionString);
  try {
    const out: StoredRow[] = [];
    const read = client.readStream(STREAM, { direction: FORWARDS, fromRevision: START });
    for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
      const event = resolved.event!;
      const { id, kind: _kind, ...body } = event.data as Record<string, unknown>;
      const version = (event.metadata as { schemaVersion?: number }).schemaVersion ?? 1;
      out.push({ seq: Number(event.revision), id: id as string, type: event.type, version, body });
    }
    return out;
  } finally {
    await client.dispose();
  }
}

/** A server holding `tampered` as the memory's stream, at revisions 0, 1, ... */
async function serverWith(tampered: readonly StoredRow[]): Promise<EsdbTestServer> {
  const server = await startEsdbTestServer();
  const client = EventStoreDBClient.connectionString(server.connectionString);
  try {
    const events = tampered.map((row) =>
      jsonEvent({
        type: row.type,
        data: { ...row.body, id: row.id, kind: row.type.toLowerCase() },
        metadata: { schemaVersion: row.version },
      }),
    );
    await client.appendToStream(STREAM, events);
  } finally {
    await client.dispose();
  }
  return server;
}

const verify = (server: EsdbTestServer) =>
  runCli(
    [
      'verify',
      '--eventstore',
      server.connectionString,
      '--read-models',
      join(root, 'read-models.db'),
      '--memory',
      AUDITED,
      '--checkpoint',
      join(root, 'saved.note'),
      '--vkey',
      logKey.vkey,
    ],
    { MEMLEDGER_ENCRYPTION: 'off', MEMLEDGER_ESDB_INDEX: join(root, `index-${++run}.db`) },
  );

beforeAll(async () => {
  buildOnce();
  root = mkdtempSync(join(tmpdir(), 'memledger-tamper-esdb-'));
  original = await startEsdbTestServer();
  const store = await openStore({
    kind: 'eventstoredb',
    connectionString: original.connectionString,
    idIndex: join(root, 'app-index.db'),
    keys: { kind: 'beside', path: join(root, 'eventstoredb'), env: {} },
  });
  const memledger = openMemledger({
    store,
    log: identity,
    readModels: join(root, 'read-models.db'),
  });
  writeFileSync(join(root, 'saved.note'), await writeHistory(memledger));
  await memledger.close();
  rows = await readStream(original);
});
afterAll(async () => {
  await original.close();
  rmSync(root, { recursive: true, force: true });
});

describe('tampering with an EventStoreDB stream', () => {
  it('verifies the stream as written, and an untouched copy of it (exit 0)', async () => {
    expect(rows).toHaveLength(10);
    expect(rows[0]!.body.sealed).toMatch(/^v1\./);
    for (const server of [original, await serverWith(rows)]) {
      const result = await verify(server);
      expect(result.stdout).toContain('ok: the checkpoint tamper.test/audited at size 10 verifies');
      expect(result.code).toBe(0);
      if (server !== original) await server.close();
    }
  });

  it.each(TAMPER_CASES.map((c) => [c.name, c] as const))(
    'catches a stream that %s',
    async (_name, tampering) => {
      const server = await serverWith(tampering.tamper(rows));
      try {
        const result = await verify(server);
        expect(result.stdout).toMatch(tampering.named);
        expect(result.code).toBe(2);
      } finally {
        await server.close();
      }
    },
  );
});
