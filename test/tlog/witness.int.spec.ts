/**
 * The witness over real HTTP on loopback with a real SQLite state file: it cosigns consistent
 * checkpoints only, answers every refusal with the status C2SP tlog-witness fixes and says why,
 * keeps its state across a restart, and never rolls a log back under concurrent requests.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signCheckpoint } from '../../src/tlog/checkpoint-signing.js';
import { generateSigner, type NoteSigner } from '../../src/tlog/note-signer.js';
import { formatAddCheckpointBody } from '../../src/tlog/witness/add-checkpoint-body.js';
import { Witness } from '../../src/tlog/witness/witness.js';
import { startWitnessServer, type WitnessServer } from '../../src/tlog/witness/witness-server.js';
import { WitnessState } from '../../src/tlog/witness/witness-state.js';
import { SIGNATURE_TYPE, parseVerifierKey, verifyCheckpoint } from '../../src/verify/index.js';
import { testLogs } from './witness-fixture.js';

/**
 * The status of a response, its body read to the end: an unread body keeps its keep-alive
 * socket, and with it the test worker, alive after the server closed.
 */
async function statusOf(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.arrayBuffer();
  return answered.status;
}

describe('the witness', () => {
  let dir: string;
  let witnessKey: NoteSigner;
  let state: WitnessState;
  let server: WitnessServer;
  const { log, forked } = testLogs();
  const other = testLogs('other.example').log;

  async function start(): Promise<void> {
    state = WitnessState.open(join(dir, 'witness.db'));
    const logs = [await parseVerifierKey(log.key.vkey)];
    server = await startWitnessServer(
      new Witness({ key: witnessKey, logs, state, now: () => 1_760_000_000 }),
      '127.0.0.1',
      0,
    );
  }
  async function stop(): Promise<void> {
    await server.close();
    state.close();
  }
  const post = async (body: string | Uint8Array<ArrayBuffer>) => {
    const response = await fetch(`${server.url}/add-checkpoint`, { method: 'POST', body });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-witness-'));
    witnessKey = generateSigner('witness.example', SIGNATURE_TYPE.cosignature);
    await start();
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cosigns a first checkpoint, then one that extends it, with cosignatures that verify', async () => {
    const first = await post(log.body(0, 20));
    expect(first.status).toBe(200);
    const trust = {
      log: await parseVerifierKey(log.key.vkey),
      witnesses: [await parseVerifierKey(witnessKey.vkey)],
    };
    const cosigned = await verifyCheckpoint(`${log.note(20)}${first.text}`, trust);
    expect(cosigned.cosignatures.map((c) => c.timestamp)).toEqual([1_760_000_000]);
    expect((await post(log.body(20, 57))).status).toBe(200);
    expect((await post(log.body(57, 57))).status).toBe(200);
  });

  it('answers 409 with the size it knows when the old size is not its latest', async () => {
    await post(log.body(0, 20));
    const stale = await post(log.body(0, 30));
    expect([stale.status, stale.type, stale.text]).toEqual([409, 'text/x.tlog.size', '20\n']);
    expect((await post(log.body(10, 30))).text).toBe('20\n');
  });

  it('refuses a rewritten history signed with the same key (422), says why, and keeps its state', async () => {
    await post(log.body(0, 20));
    const fork = await post(forked.body(20, 40));
    expect(fork.status).toBe(422);
    expect(fork.text).toContain('Inconsistent with the checkpoint cosigned at size 20');
    expect(state.latest(log.origin)?.size).toBe(20);
    expect(state.refusals(log.origin)).toHaveLength(1);
    const sameSizeOtherRoot = await post(forked.body(20, 20));
    expect(sameSizeOtherRoot.status).toBe(422);
    expect(sameSizeOtherRoot.text).toContain('differ');
  });

  it('refuses a smaller checkpoint: its size is below the old size it must give (400)', async () => {
    await post(log.body(0, 20));
    const smaller = formatAddCheckpointBody({ oldSize: 20, proof: [], note: log.note(15) });
    const answer = await post(smaller);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('past the checkpoint size 15');
  });

  it('refuses a forged signature (403) and an unknown origin (404)', async () => {
    const impostor = testLogs('log.example').log; // same name, another key
    expect((await post(impostor.body(0, 5))).status).toBe(403);
    expect((await post(other.body(0, 5))).status).toBe(404);
    const tampered = log
      .body(0, 5)
      .replace(/\n(\d+)\n/, (_m, size: string) => `\n${Number(size) + 1}\n`);
    expect((await post(tampered)).status).toBe(403);
  });

  it.each([
    ['no old line', (b: string) => b.replace(/^old 0\n/, '')],
    ['a leading zero', (b: string) => b.replace(/^old 0/, 'old 00')],
    ['no empty line', (b: string) => b.replace('\n\n', '\n')],
    [
      'a proof line that is not a hash',
      (b: string) => b.replace(/^old 0\n/, 'old 0\nnot-base64\n'),
    ],
    ['a checkpoint that is not a note', () => 'old 0\n\nhello\n'],
    [
      '64 proof lines',
      (b: string) =>
        b.replace(/^old 0\n/, `old 0\n${`${Buffer.alloc(32).toString('base64')}\n`.repeat(64)}`),
    ],
  ])('answers 400 to a body with %s', async (_what, change) => {
    expect((await post(change(log.body(0, 5)))).status).toBe(400);
  });

  it('answers 422 to an empty tree with another root and to a proof from old size 0', async () => {
    const withProof = formatAddCheckpointBody({
      oldSize: 0,
      proof: log.tree.consistencyPath(3, 5),
      note: log.note(5),
    });
    expect((await post(withProof)).status).toBe(422);
    const wrongEmpty = signCheckpoint(log.key, {
      origin: log.origin,
      head: { size: 0, root: Buffer.alloc(32, 1) },
      last: null,
      proof: [],
    });
    const answer = await post(`old 0\n\n${wrongEmpty}`);
    expect([answer.status, answer.text]).toEqual([
      422,
      'A checkpoint of size 0 must carry the root of the empty tree.\n',
    ]);
    expect((await post(log.body(0, 0))).status).toBe(200);
  });

  it('answers 400 to bytes that are not UTF-8, 413 to a huge body, 405 and 404 elsewhere', async () => {
    expect((await post(new Uint8Array([0x6f, 0x6c, 0x64, 0x20, 0xff, 0x0a]))).status).toBe(400);
    expect((await post('x'.repeat(70_000))).status).toBe(413);
    expect(await statusOf(fetch(`${server.url}/add-checkpoint`))).toBe(405);
    expect(await statusOf(fetch(`${server.url}/nothing`))).toBe(404);
  });

  it('keeps its state across a restart', async () => {
    await post(log.body(0, 33));
    await stop();
    await start();
    expect((await post(log.body(0, 40))).text).toBe('33\n');
    expect((await post(forked.body(33, 40))).status).toBe(422);
    expect((await post(log.body(33, 40))).status).toBe(200);
  });

  it('serves the last cosigned note by origin hash', async () => {
    await post(log.body(0, 12));
    const hash = createHash('sha256').update(log.origin).digest('hex');
    const response = await fetch(`${server.url}/${hash}/checkpoint`);
    const trust = {
      log: await parseVerifierKey(log.key.vkey),
      witnesses: [await parseVerifierKey(witnessKey.vkey)],
    };
    expect((await verifyCheckpoint(await response.text(), trust)).size).toBe(12);
    expect(await statusOf(fetch(`${server.url}/${'0'.repeat(64)}/checkpoint`))).toBe(404);
  });

  it('lets exactly one of many concurrent requests from one old size through, never rolling back', async () => {
    await post(log.body(0, 10));
    const sizes = [15, 40, 22, 90, 11, 60, 33, 70];
    const answers = await Promise.all(sizes.map((size) => post(log.body(10, size))));
    const winners = sizes.filter((_, i) => answers[i]!.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => a.text)).toEqual(
      Array(7).fill(`${winners[0]}\n`),
    );
    expect(state.latest(log.origin)?.size).toBe(winners[0]);
    // A burst of growing checkpoints, each from the size before it, all racing: each succeeds
    // only from the state it names, so the state ends on one of them and matches the log.
    const chain = [91, 92, 93, 94, 95];
    const burst = await Promise.all(
      chain.map((size, i) => post(log.body(i === 0 ? winners[0]! : chain[i - 1]!, size))),
    );
    expect(burst.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(burst[0]!.status).toBe(200);
    const final = state.latest(log.origin)!;
    expect(chain).toContain(final.size);
    expect(final.root).toEqual(log.tree.root(final.size));
  });
});
