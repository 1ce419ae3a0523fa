/**
 * The monitor against a loopback server serving notes and proofs made by the production signer
 * and tree: it saves what verifies, and catches — keeping both notes and the proof as evidence,
 * saving nothing — a rewritten history re-signed with the same key, another root at the same
 * size, a size that went down, a signature by another key, too few witnesses.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryError } from '../../src/core/index.js';
import { cosignatureLine } from '../../src/tlog/checkpoint-signing.js';
import { runMonitor, type MonitorOptions } from '../../src/tlog/monitor/monitor.js';
import { generateSigner } from '../../src/tlog/note-signer.js';
import { SIGNATURE_TYPE, parseNote } from '../../src/verify/index.js';
import { servedNote, startFakeMemledger, type Served } from './fake-memledger.js';
import { testLogs } from './witness-fixture.js';

describe('the monitor', () => {
  const { log, forked } = testLogs('log.example', 'team-a', 10);
  let dir: string;
  let served: Served;
  let server: Awaited<ReturnType<typeof startFakeMemledger>>;
  let options: MonitorOptions;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-monitor-'));
    served = { tree: log.tree, key: log.key, size: 20, memory: 'team-a', extraLines: [] };
    server = await startFakeMemledger(served);
    options = {
      url: server.url,
      memory: 'team-a',
      statePath: join(dir, 'team-a.note'),
      vkey: log.key.vkey,
    };
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const saved = () => readFileSync(options.statePath, 'utf8');
  const evidenceFiles = () =>
    readdirSync(dir)
      .filter((f) => f !== 'team-a.note')
      .sort();

  it('saves the first checkpoint, then each one that extends it', async () => {
    const first = await runMonitor(options);
    expect(first.ok).toBe(true);
    expect(first.lines[0]).toBe(
      `first checkpoint of log.example/team-a: size 20, root ${log.tree.root(20).toString('base64')}`,
    );
    expect(saved()).toBe(servedNote(served));
    served.size = 64;
    const grown = await runMonitor(options);
    expect(grown.lines[0]).toBe(
      'ok: log.example/team-a grew from size 20 to 64; the consistency proof verifies',
    );
    expect(parseNote(saved()).text).toContain('\n64\n');
    expect((await runMonitor(options)).lines[0]).toBe('ok: log.example/team-a is still at size 64');
    expect(evidenceFiles()).toEqual([]);
  });

  it('catches a rewritten history re-signed with the same key, and keeps both notes and the proof', async () => {
    await runMonitor(options);
    const before = saved();
    served.tree = forked.tree; // leaf 10 rewritten, the tree rebuilt, the same key signs
    served.size = 40;
    const report = await runMonitor(options);
    expect(report.ok).toBe(false);
    expect(report.lines[0]).toMatch(
      /^violation: log\.example\/team-a at size 40 does not extend the saved checkpoint at size 20: /,
    );
    expect(saved()).toBe(before);
    expect(report.evidence.map((p) => p.split('.').slice(-2).join('.'))).toEqual([
      'saved.note',
      'fetched.note',
      'proof.json',
    ]);
    expect(readFileSync(report.evidence[0]!, 'utf8')).toBe(before);
    expect(readFileSync(report.evidence[1]!, 'utf8')).toBe(servedNote(served));
  });

  it('catches another root at the same size, and a size that went down', async () => {
    await runMonitor(options);
    served.tree = forked.tree;
    expect((await runMonitor(options)).lines[0]).toBe(
      'violation: log.example/team-a has two roots at size 20: the history was rewritten.',
    );
    served.tree = log.tree;
    served.size = 12;
    expect((await runMonitor(options)).lines[0]).toBe(
      'violation: log.example/team-a went back from size 20 to 12.',
    );
    expect(evidenceFiles()).toHaveLength(4);
  });

  it('catches a checkpoint signed by another key under the same name', async () => {
    await runMonitor(options);
    served.key = generateSigner('log.example');
    served.size = 30;
    const report = await runMonitor(options);
    expect(report.lines[0]).toMatch(
      /^violation: The checkpoint the server gave does not verify \[NOTE_UNVERIFIED\]/,
    );
    // Trusting whatever key the server presents does not help: the saved note does not verify.
    const { vkey: _pinned, ...unpinned } = options;
    const tofu = await runMonitor(unpinned);
    expect(tofu.lines[0]).toMatch(
      /^warning: no --vkey given: trusting the key the server presents/,
    );
    expect(tofu.lines[1]).toMatch(
      /^violation: The saved checkpoint does not verify \[NOTE_UNVERIFIED\]/,
    );
  });

  it('catches a checkpoint of another memory and a proof that is not a proof', async () => {
    await runMonitor(options);
    served.size = 30;
    served.proofOverride = '{"from":20,"to":30,"path":"nope"}';
    expect((await runMonitor(options)).lines[0]).toMatch(
      /does not extend the saved checkpoint at size 20: Proof field path/,
    );
    served.proofOverride = 'not json';
    expect((await runMonitor(options)).ok).toBe(false);
    delete served.proofOverride;
    served.origin = 'log.example/team-b';
    expect((await runMonitor(options)).lines[0]).toMatch(
      /^violation: The checkpoint the server gave does not verify \[CHECKPOINT_MISMATCH\]: The checkpoint is for origin "log.example\/team-b", not "log.example\/team-a"/,
    );
  });

  it('requires the witness quorum and ignores cosignatures by unknown witnesses', async () => {
    const [w1, w2, stranger] = ['w1.example', 'w2.example', 'x.example'].map((n) =>
      generateSigner(n, SIGNATURE_TYPE.cosignature),
    );
    const cosign = (w: typeof w1) =>
      cosignatureLine(w!, parseNote(servedNote(served)).text, 1_760_000_000);
    served.extraLines = [cosign(w1), cosign(stranger)];
    const witnesses = [w1!.vkey, w2!.vkey];
    const one = await runMonitor({ ...options, witnesses, quorum: 2 });
    expect(one.lines[0]).toMatch(
      /^violation: .*\[QUORUM_NOT_MET\]: 1 of the trusted witnesses cosigned the checkpoint; 2 are required/,
    );
    expect(existsSync(options.statePath)).toBe(false);
    served.extraLines = [cosign(w1), cosign(stranger), cosign(w2)];
    const both = await runMonitor({ ...options, witnesses, quorum: 2 });
    expect(both.ok).toBe(true);
    expect(both.lines[1]).toBe('cosigned by w1.example, w2.example');
  });

  it('throws, saving nothing, when the server cannot be reached', async () => {
    await server.close();
    const error = await runMonitor(options).catch((e: unknown) => e);
    expect(isMemoryError(error, 'CHECKPOINT_UNAVAILABLE')).toBe(true);
    expect(existsSync(options.statePath)).toBe(false);
    server = await startFakeMemledger(served); // afterEach closes it
  });
});
