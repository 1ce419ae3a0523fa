/**
 * Tampering with a real SQLite file (triggers dropped by hand) after an auditor saved a signed
 * checkpoint: `memledger verify --checkpoint saved.note --vkey <key>` (the real binary, reading
 * the file without its key store) names the seq of each tampering and exits 2, and the server,
 * reopened on the tampered file, refuses to prove an event that is not the one its tree recorded
 * and to sign over a log that lost events.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openStore } from '../../src/store/open-store.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { copyStore, storeFile, tamperFile } from './sqlite-file.js';
import { AUDITED, TAMPER_CASES, identity, logKey, writeHistory } from './tamper-history.js';

jest.setTimeout(120_000);

let root: string;
let note: string;
const template = () => join(root, 'template');

async function openSealed(dir: string, notices: string[] = []): Promise<Memledger> {
  const path = storeFile(dir);
  const store = await openStore({ kind: 'sqlite', path, keys: { kind: 'beside', path, env: {} } });
  return openMemledger({ store, log: identity, onNotice: (n) => notices.push(n) });
}

const verify = (dir: string) =>
  runCli(
    [
      'verify',
      '--db',
      storeFile(dir),
      '--memory',
      AUDITED,
      '--checkpoint',
      join(root, 'saved.note'),
      '--vkey',
      logKey.vkey,
    ],
    { MEMLEDGER_ENCRYPTION: 'off' },
  );

beforeAll(async () => {
  buildOnce();
  root = mkdtempSync(join(tmpdir(), 'memledger-tamper-sqlite-'));
  const memledger = await openSealed(template());
  note = await writeHistory(memledger);
  await memledger.close();
  writeFileSync(join(root, 'saved.note'), note);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('tampering with a SQLite file', () => {
  it('verifies the untouched file against the saved checkpoint (exit 0)', async () => {
    const run = await verify(template());
    expect(run.stdout).toContain('ok: the checkpoint tamper.test/audited at size 10 verifies');
    expect(run.code).toBe(0);
  });

  it.each(TAMPER_CASES.map((c) => [c.name, c] as const))(
    'catches a file that %s',
    async (_name, tampering) => {
      const dir = join(root, tampering.name.replaceAll(' ', '-'));
      copyStore(template(), dir);
      tamperFile(storeFile(dir), AUDITED, tampering);
      const run = await verify(dir);
      expect(run.stdout).toMatch(tampering.named);
      expect(run.code).toBe(2);
    },
  );

  it('has the server refuse to prove an event its tree recorded otherwise, loudly', async () => {
    const dir = join(root, 'server-edit');
    copyStore(template(), dir);
    tamperFile(storeFile(dir), AUDITED, TAMPER_CASES[0]!);
    const notices: string[] = [];
    const memledger = await openSealed(dir, notices);
    try {
      const memory = await memledger.memory(AUDITED);
      await expect(memory.proveInclusion(3)).rejects.toMatchObject({
        code: 'LOG_INVARIANT_VIOLATED',
      });
      await expect(memory.proveInclusion(2)).resolves.toMatchObject({ seq: 2, treeSize: 10 });
      expect(notices.join('\n')).toMatch(/REFUSED \[LOG_INVARIANT_VIOLATED\].*seq 3/);
    } finally {
      await memledger.close();
    }
  });

  it('has the server refuse to sign over a log that lost its tail, loudly', async () => {
    const dir = join(root, 'server-truncate');
    copyStore(template(), dir);
    tamperFile(
      storeFile(dir),
      AUDITED,
      TAMPER_CASES.find((c) => c.name === 'truncates the tail')!,
    );
    const notices: string[] = [];
    const memledger = await openSealed(dir, notices);
    try {
      const memory = await memledger.memory(AUDITED);
      // The tree, past the log's head, is rebuilt from the log; the checkpoint signed before is not.
      await expect(memory.checkpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_INCONSISTENT' });
      expect(notices.join('\n')).toMatch(
        /REFUSED \[CHECKPOINT_INCONSISTENT\]: .*its log holds 7 events, but a checkpoint of size 10 was signed before; the log lost events since/,
      );
    } finally {
      await memledger.close();
    }
  });
});
