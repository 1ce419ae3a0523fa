/**
 * The client the server uses to ask witnesses for cosignatures, against real witnesses on
 * loopback: it learns where each witness stands from its 409, sends the proof from there,
 * attaches only cosignatures that verify, and reports a witness that is down or refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigner } from '../../src/tlog/note-signer.js';
import { Witness } from '../../src/tlog/witness/witness.js';
import { WitnessClient, parseWitnessList } from '../../src/tlog/witness/witness-client.js';
import { startWitnessServer, type WitnessServer } from '../../src/tlog/witness/witness-server.js';
import { WitnessState } from '../../src/tlog/witness/witness-state.js';
import { SIGNATURE_TYPE, parseVerifierKey, verifyCheckpoint } from '../../src/verify/index.js';
import { testLogs } from './witness-fixture.js';

describe('asking witnesses to cosign', () => {
  const { log, forked } = testLogs();
  const keys = [1, 2].map((n) => generateSigner(`w${n}.example`, SIGNATURE_TYPE.cosignature));
  let dir: string;
  let states: WitnessState[];
  let servers: WitnessServer[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-witness-client-'));
    const logs = [await parseVerifierKey(log.key.vkey)];
    states = keys.map((_, i) => WitnessState.open(join(dir, `w${i}.db`)));
    servers = await Promise.all(
      keys.map((key, i) =>
        startWitnessServer(new Witness({ key, logs, state: states[i]! }), '127.0.0.1', 0),
      ),
    );
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    for (const state of states) state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const proofFrom = (size: number) => (old: number) => log.tree.consistencyPath(old, size);
  const trust = async (quorum: number) => ({
    log: await parseVerifierKey(log.key.vkey),
    witnesses: await Promise.all(keys.map((k) => parseVerifierKey(k.vkey))),
    quorum,
  });

  it('reads MEMLEDGER_WITNESSES entries and refuses a bad one, naming it', async () => {
    const list = await parseWitnessList(
      `${keys[0]!.vkey}=http://127.0.0.1:1/w/, ${keys[1]!.vkey}=https://w2.example`,
    );
    expect(list.map((w) => [w.key.name, w.url])).toEqual([
      ['w1.example', 'http://127.0.0.1:1/w'],
      ['w2.example', 'https://w2.example'],
    ]);
    await expect(parseWitnessList('nonsense')).rejects.toThrow(
      'is not <verifier key>=<http(s) URL>',
    );
    await expect(parseWitnessList(`${log.key.vkey}=http://x`)).rejects.toThrow(
      'where 0x04 is needed',
    );
  });

  it('gets every witness to cosign, then to cosign the next checkpoint from where each stands', async () => {
    const witnesses = await parseWitnessList(
      keys.map((k, i) => `${k.vkey}=${servers[i]!.url}`).join(' '),
    );
    const asker = new WitnessClient(witnesses);
    const first = await asker.cosign(log.note(20), proofFrom(20));
    expect(first.results.map((r) => r.ok)).toEqual([true, true]);
    expect((await verifyCheckpoint(first.note, await trust(2))).cosignatures).toHaveLength(2);
    const second = await asker.cosign(log.note(45), proofFrom(45));
    expect((await verifyCheckpoint(second.note, await trust(2))).size).toBe(45);
    // A client that knows nothing (a restarted server) learns each witness's size from its 409.
    const fresh = new WitnessClient(witnesses);
    const third = await fresh.cosign(log.note(60), proofFrom(60));
    expect(third.results.map((r) => r.ok)).toEqual([true, true]);
  });

  it('reports a witness that is down or refuses, and attaches the cosignatures it got', async () => {
    const witnesses = await parseWitnessList(
      `${keys[0]!.vkey}=${servers[0]!.url} ${keys[1]!.vkey}=http://127.0.0.1:9`,
    );
    const asker = new WitnessClient(witnesses, { timeoutMs: 2000 });
    const result = await asker.cosign(log.note(20), proofFrom(20));
    expect(result.results.map((r) => r.ok)).toEqual([true, false]);
    expect((await verifyCheckpoint(result.note, await trust(1))).cosignatures).toHaveLength(1);
    const fork = await asker.cosign(forked.note(40), (old) => forked.tree.consistencyPath(old, 40));
    expect(fork.results[0]).toMatchObject({ ok: false });
    expect(fork.results[0]!.reason).toMatch(
      /^422: Inconsistent with the checkpoint cosigned at size 20/,
    );
    expect(fork.note).toBe(forked.note(40));
  });
});
