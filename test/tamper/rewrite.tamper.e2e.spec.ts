/**
 * The eighth tampering: the history rewritten, the tree rebuilt from it and signed again with
 * the same key. While the server still has its signed checkpoints it refuses loudly; an operator
 * who also wipes them gets a signature, and is then caught three ways: `memledger verify` against
 * the checkpoint saved before ("the root differs"), the monitor's checks against the note it kept
 * (two roots at one size, then a consistency proof that fails), and the witness that cosigned the
 * original, which refuses to cosign the rewrite.
 */
import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer } from '../../src/http/index.js';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openStore } from '../../src/store/open-store.js';
import {
  Witness,
  WitnessState,
  generateSigner,
  runMonitor,
  startWitnessServer,
  type LogIdentity,
  type WitnessServer,
} from '../../src/tlog/index.js';
import { SIGNATURE_TYPE, parseVerifierKey, verifyCheckpoint } from '../../src/verify/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { copyStore, storeFile, tamperFile } from './sqlite-file.js';
import { AUDITED, TAMPER_CASES, identity, logKey, writeHistory } from './tamper-history.js';

jest.setTimeout(120_000);

const witnessKey = generateSigner('witness.test', SIGNATURE_TYPE.cosignature);
let root: string;
let witness: WitnessServer;
let witnessed: LogIdentity;

async function openSealed(
  dir: string,
  log: LogIdentity,
  notices: string[] = [],
): Promise<Memledger> {
  const path = storeFile(dir);
  const store = await openStore({ kind: 'sqlite', path, keys: { kind: 'beside', path, env: {} } });
  return openMemledger({ store, log, onNotice: (n) => notices.push(n) });
}

/** The history at seq 3 rewritten, and the tree rebuilt: its rows dropped, made again from the log. */
function rewrite(dir: string, wipeCheckpoints: boolean): void {
  tamperFile(storeFile(dir), AUDITED, TAMPER_CASES[0]!);
  const db = new Database(storeFile(dir));
  try {
    db.exec('DELETE FROM tree_rows');
    if (wipeCheckpoints) {
      db.exec(`DROP TRIGGER tlog_checkpoints_insert_only_update;
               DROP TRIGGER tlog_checkpoints_insert_only_delete;
               DELETE FROM tlog_checkpoints;`);
    }
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  buildOnce();
  root = mkdtempSync(join(tmpdir(), 'memledger-rewrite-'));
  const w = new Witness({
    key: witnessKey,
    logs: [await parseVerifierKey(logKey.vkey, SIGNATURE_TYPE.ed25519)],
    state: WitnessState.open(join(root, 'witness.db')),
  });
  witness = await startWitnessServer(w, '127.0.0.1', 0);
  const key = await parseVerifierKey(witnessKey.vkey, SIGNATURE_TYPE.cosignature);
  witnessed = { ...identity, witnesses: [{ key, url: witness.url }] };
  const memledger = await openSealed(join(root, 'template'), witnessed);
  const note = await writeHistory(memledger);
  await memledger.close();
  writeFileSync(join(root, 'saved.note'), note);
});
afterAll(async () => {
  await witness.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a rewritten history, its tree rebuilt and signed again with the same key', () => {
  it('is refused loudly by the server while it keeps its signed checkpoints', async () => {
    const dir = join(root, 'guarded');
    copyStore(join(root, 'template'), dir);
    rewrite(dir, false);
    const notices: string[] = [];
    const memledger = await openSealed(dir, identity, notices);
    try {
      const memory = await memledger.memory(AUDITED);
      await expect(memory.checkpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_INCONSISTENT' });
      await memory.recordMessage({ speaker: 'user', content: 'after the rewrite' });
      await expect(memory.checkpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_INCONSISTENT' });
      expect(notices.filter((n) => n.includes('REFUSED [CHECKPOINT_INCONSISTENT]'))).toHaveLength(
        2,
      );
    } finally {
      await memledger.close();
    }
  });

  it('is caught by verify, the monitor and the witness once the operator wipes them and signs', async () => {
    const dir = join(root, 'wiped');
    copyStore(join(root, 'template'), dir);
    rewrite(dir, true);
    const state = join(root, 'monitor.note');
    writeFileSync(state, await readFile(join(root, 'saved.note'), 'utf8'));
    const server = await startServer({
      logger: false,
      host: '127.0.0.1',
      port: 0,
      store: {
        kind: 'sqlite',
        path: storeFile(dir),
        keys: { kind: 'beside', path: storeFile(dir), env: {} },
      },
      memory: { log: witnessed },
    });
    try {
      const fetched = await (
        await fetch(`${server.url}/api/memories/${AUDITED}/checkpoint`)
      ).text();
      const log = await parseVerifierKey(logKey.vkey, SIGNATURE_TYPE.ed25519);
      const wkey = await parseVerifierKey(witnessKey.vkey, SIGNATURE_TYPE.cosignature);
      // Signed by the operator's key: only the witness's missing cosignature shows the rewrite.
      expect((await verifyCheckpoint(fetched, { log })).size).toBe(10);
      await expect(
        verifyCheckpoint(fetched, { log, witnesses: [wkey], quorum: 1 }),
      ).rejects.toMatchObject({
        code: 'QUORUM_NOT_MET',
      });
      const original = await readFile(join(root, 'saved.note'), 'utf8');
      expect((await verifyCheckpoint(original, { log, witnesses: [wkey], quorum: 1 })).size).toBe(
        10,
      );
      // The witness refused it and still holds the original it cosigned.
      const originHash = createHash('sha256').update(`${logKey.name}/${AUDITED}`).digest('hex');
      const held = await (await fetch(`${witness.url}/${originHash}/checkpoint`)).text();
      expect(held.slice(0, held.indexOf('\n\n'))).toBe(original.slice(0, original.indexOf('\n\n')));
      expect(fetched.slice(0, fetched.indexOf('\n\n'))).not.toBe(
        original.slice(0, original.indexOf('\n\n')),
      );

      const verified = await runCli(
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
      expect(verified.stdout).toMatch(/violation \[ROOT_DIFFERS\]: the root differs/);
      expect(verified.code).toBe(2);

      const monitor = () =>
        runMonitor({ url: server.url, memory: AUDITED, statePath: state, vkey: logKey.vkey });
      const sameSize = await monitor();
      expect(sameSize.ok).toBe(false);
      expect(sameSize.lines.join('\n')).toMatch(
        /has two roots at size 10: the history was rewritten/,
      );
      await fetch(`${server.url}/api/memories/${AUDITED}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ speaker: 'user', content: 'later' }),
      });
      const grown = await monitor();
      expect(grown.ok).toBe(false);
      expect(grown.lines.join('\n')).toMatch(
        /at size 11 does not extend the saved checkpoint at size 10/,
      );
      expect(readdirSync(root).filter((f) => f.startsWith('monitor.note.')).length).toBeGreaterThan(
        0,
      );
    } finally {
      await server.close();
    }
  });
});
