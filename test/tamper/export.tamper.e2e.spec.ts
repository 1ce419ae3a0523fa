/**
 * The stored-form export (`memledger export --stored`, the real binary) keeps sealed content
 * sealed and carries what recomputing each leaf needs: `memledger verify --export` accepts the
 * file as written against the checkpoint saved before, and catches each tampering of it with
 * exit 2 (an export has no tree beside it, so an edit shows as "the root differs").
 */
import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_TYPES, type EventKind } from '../../src/core/index.js';
import { openMemledger } from '../../src/memory/index.js';
import { openStore } from '../../src/store/open-store.js';
import { generateSigner } from '../../src/tlog/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { storeFile } from './sqlite-file.js';
import {
  AUDITED,
  CANARY,
  TAMPER_CASES,
  identity,
  logKey,
  writeHistory,
  type StoredRow,
} from './tamper-history.js';

jest.setTimeout(120_000);

let root: string;
const exported = () => join(root, 'stored.jsonl');

/** What verify says of each tampered export. */
const EXPECTED: Record<string, RegExp> = {
  'edits one payload byte': /violation \[ROOT_DIFFERS\]: the root differs/,
  'changes a timestamp': /violation \[ROOT_DIFFERS\]: the root differs/,
  'deletes a row': /violation \[LOG_GAP\] at seq 5:/,
  'swaps two events': /violation \[ROOT_DIFFERS\]: the root differs/,
  'truncates the tail': /violation \[LOG_TRUNCATED\] at seq 7:/,
  'inserts a forged event': /violation \[ROOT_DIFFERS\]: the root differs/,
  'replaces a sealed payload': /violation \[ROOT_DIFFERS\]: the root differs/,
};

const KINDS = Object.fromEntries(Object.entries(EVENT_TYPES).map(([k, t]) => [t, k])) as Record<
  string,
  EventKind
>;

function readExport(path: string): StoredRow[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { seq, kind, id, version, ...body } = JSON.parse(line) as Record<string, unknown>;
      const type = EVENT_TYPES[kind as EventKind];
      return { seq: seq as number, id: id as string, type, version: version as number, body };
    });
}

function writeExport(path: string, rows: readonly StoredRow[]): void {
  const lines = rows.map((row) =>
    JSON.stringify({
      seq: row.seq,
      kind: KINDS[row.type],
      id: row.id,
      version: row.version,
      ...row.body,
    }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const verify = (file: string) =>
  runCli([
    'verify',
    '--export',
    file,
    '--memory',
    AUDITED,
    '--checkpoint',
    join(root, 'saved.note'),
    '--vkey',
    logKey.vkey,
  ]);

beforeAll(async () => {
  buildOnce();
  root = mkdtempSync(join(tmpdir(), 'memledger-tamper-export-'));
  const path = storeFile(root);
  const store = await openStore({ kind: 'sqlite', path, keys: { kind: 'beside', path, env: {} } });
  const memledger = openMemledger({ store, log: identity });
  writeFileSync(join(root, 'saved.note'), await writeHistory(memledger));
  await memledger.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a stored-form export', () => {
  it('keeps sealed content sealed, with or without the key store, where a plain export opens it', async () => {
    const plain = await runCli(['export', '--db', storeFile(root), '--memory', AUDITED]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(CANARY);
    const withKeys = await runCli([
      'export',
      '--stored',
      '--db',
      storeFile(root),
      '--memory',
      AUDITED,
    ]);
    const withoutKeys = await runCli(
      ['export', '--stored', '--db', storeFile(root), '--memory', AUDITED, '--out', exported()],
      { MEMLEDGER_ENCRYPTION: 'off' },
    );
    expect([withKeys.code, withoutKeys.code]).toEqual([0, 0]);
    expect(withKeys.stdout).toBe(readFileSync(exported(), 'utf8'));
    expect(withKeys.stdout).not.toContain(CANARY);
    const rows = readExport(exported());
    expect(rows.map((row) => row.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rows[0]!.body.sealed).toMatch(/^v1\./);
  });

  it('verifies against the checkpoint saved before (exit 0)', async () => {
    const run = await verify(exported());
    expect(run.stdout).toContain('ok: the checkpoint tamper.test/audited at size 10 verifies');
    expect(run.code).toBe(0);
  });

  it.each(TAMPER_CASES.map((c) => [c.name, c] as const))(
    'catches an export that %s',
    async (name, tampering) => {
      const file = join(root, `${name.replaceAll(' ', '-')}.jsonl`);
      writeExport(file, tampering.tamper(readExport(exported())));
      const run = await verify(file);
      expect(run.stdout).toMatch(EXPECTED[name]!);
      expect(run.code).toBe(2);
    },
  );

  it('refuses a line that is not an event in its stored form, naming it', async () => {
    const file = join(root, 'garbled.jsonl');
    writeFileSync(file, `${readFileSync(exported(), 'utf8')}{"seq":10,"kind":"nope"}\n`);
    const run = await verify(file);
    expect(run.stdout).toMatch(
      /violation \[EVENT_DECODE_FAILED\] at seq 10: Line 11 of the export/,
    );
    expect(run.code).toBe(2);
  });

  it('refuses a checkpoint signed by another key, and options that do not go together', async () => {
    const impostor = generateSigner('tamper.test');
    const other = await runCli([
      'verify',
      '--export',
      exported(),
      '--memory',
      AUDITED,
      '--checkpoint',
      join(root, 'saved.note'),
      '--vkey',
      impostor.vkey,
    ]);
    expect(other.stdout).toMatch(
      /violation \[NOTE_UNVERIFIED\]: the saved checkpoint does not verify: No trusted key signed the note/,
    );
    expect([other.code, other.stderr]).toEqual([2, '']);
    const noKey = await runCli(
      ['verify', '--export', exported(), '--checkpoint', join(root, 'saved.note')],
      {
        MEMLEDGER_LOG_VKEY: '',
      },
    );
    expect([noKey.code, noKey.stderr]).toEqual([
      1,
      expect.stringMatching(/--checkpoint needs --vkey/),
    ]);
    const noNote = await runCli(['verify', '--export', exported(), '--vkey', logKey.vkey]);
    expect([noNote.code, noNote.stderr]).toEqual([
      1,
      expect.stringMatching(/--export needs --checkpoint/),
    ]);
  });
});
