/**
 * C2SP tlog-checkpoint bodies and the checks a client makes of a signed checkpoint: the log's
 * signature, its origin, and a quorum of witness cosignatures (C2SP tlog-cosignature), where a
 * cosignature by an unknown witness is ignored, not fatal.
 */
import {
  formatCheckpoint,
  isVerifyError,
  parseCheckpoint,
  parseVerifierKey,
  verifyCheckpoint,
  type VerifierKey,
} from '../../src/verify/index.js';
import { noteOf, testLogSigner, testWitness } from './note-keys.js';

const ROOT = 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=';
const BODY = `example.com/behind-the-sofa\n20852163\n${ROOT}\n`;

async function codeOf(work: () => unknown): Promise<string | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return isVerifyError(error) ? error.code : `not a VerifyError: ${String(error)}`;
  }
}

describe('checkpoint bodies', () => {
  it('reads the C2SP example, and writes it back byte for byte', () => {
    const checkpoint = parseCheckpoint(BODY);
    expect(checkpoint.origin).toBe('example.com/behind-the-sofa');
    expect(checkpoint.size).toBe(20852163);
    expect(Buffer.from(checkpoint.root).toString('base64')).toBe(ROOT);
    expect(checkpoint.extensions).toEqual([]);
    expect(formatCheckpoint(checkpoint)).toBe(BODY);
    const extended = parseCheckpoint(`${BODY}ext one\next two\n`);
    expect(extended.extensions).toEqual(['ext one', 'ext two']);
    expect(formatCheckpoint(extended)).toBe(`${BODY}ext one\next two\n`);
  });

  it.each([
    ['two lines', `origin\n1\n`],
    ['no final newline', BODY.slice(0, -1)],
    ['an empty origin', `\n1\n${ROOT}\n`],
    ['an empty extension line', `${BODY}\n`],
    ['a leading zero', `o\n01\n${ROOT}\n`],
    ['a sign', `o\n+1\n${ROOT}\n`],
    ['a size past 2^53', `o\n9007199254740993\n${ROOT}\n`],
    ['a root of 31 bytes', `o\n1\n${Buffer.alloc(31).toString('base64')}\n`],
    ['a root in URL-safe base64', `o\n1\n${'_'.repeat(43)}=\n`],
    ['a root without padding', `o\n1\n${ROOT.slice(0, -1)}\n`],
  ])('refuses a body with %s', async (_what, text) => {
    expect(await codeOf(() => parseCheckpoint(text))).toBe('CHECKPOINT_MALFORMED');
  });

  it('reads size 0', () => {
    expect(parseCheckpoint(`o\n0\n${ROOT}\n`).size).toBe(0);
  });
});

describe('signed checkpoints', () => {
  const log = testLogSigner('log.example/memledger');
  const otherLog = testLogSigner('log.example/memledger');
  const [w1, w2, w3] = ['w1.example', 'w2.example', 'w3.example'].map((name) => testWitness(name));
  const stranger = testWitness('stranger.example');
  let logKey: VerifierKey;
  let witnesses: VerifierKey[];
  beforeAll(async () => {
    logKey = await parseVerifierKey(log.vkey);
    witnesses = await Promise.all([w1!, w2!, w3!].map((w) => parseVerifierKey(w.vkey)));
  });

  it('verifies the log signature and returns the checkpoint', async () => {
    const checkpoint = await verifyCheckpoint(noteOf(BODY, [log.line(BODY)]), {
      log: logKey,
      origin: 'example.com/behind-the-sofa',
    });
    expect([checkpoint.origin, checkpoint.size, checkpoint.text]).toEqual([
      'example.com/behind-the-sofa',
      20852163,
      BODY,
    ]);
  });

  it('refuses a checkpoint signed by another key under the same name, or by a witness alone', async () => {
    expect(
      await codeOf(() => verifyCheckpoint(noteOf(BODY, [otherLog.line(BODY)]), { log: logKey })),
    ).toBe('NOTE_UNVERIFIED');
    const onlyWitness = noteOf(BODY, [w1!.line(BODY)]);
    expect(
      await codeOf(() => verifyCheckpoint(onlyWitness, { log: logKey, witnesses, quorum: 1 })),
    ).toBe('NOTE_UNVERIFIED');
  });

  it('refuses a checkpoint for another origin', async () => {
    const note = noteOf(BODY, [log.line(BODY)]);
    expect(
      await codeOf(() => verifyCheckpoint(note, { log: logKey, origin: 'example.com/other' })),
    ).toBe('CHECKPOINT_MISMATCH');
  });

  it('counts distinct trusted witnesses and ignores cosignatures by unknown ones', async () => {
    const note = noteOf(BODY, [
      log.line(BODY),
      w1!.line(BODY),
      stranger.line(BODY),
      w2!.line(BODY, 1_700_000_123),
    ]);
    const checkpoint = await verifyCheckpoint(note, { log: logKey, witnesses, quorum: 2 });
    expect(checkpoint.cosignatures.map((c) => [c.key.name, c.timestamp])).toEqual([
      ['w1.example', 1_700_000_000],
      ['w2.example', 1_700_000_123],
    ]);
    expect(await codeOf(() => verifyCheckpoint(note, { log: logKey, witnesses, quorum: 3 }))).toBe(
      'QUORUM_NOT_MET',
    );
    expect(await codeOf(() => verifyCheckpoint(note, { log: logKey, witnesses }))).toBe(
      'QUORUM_NOT_MET',
    );
  });

  it('refuses a trusted witness cosignature over another checkpoint or another time', async () => {
    const other = `example.com/behind-the-sofa\n20852164\n${ROOT}\n`;
    const moved = w1!.line(other);
    const note = noteOf(BODY, [log.line(BODY), moved]);
    expect(await codeOf(() => verifyCheckpoint(note, { log: logKey, witnesses, quorum: 1 }))).toBe(
      'SIGNATURE_INVALID',
    );
    const line = w1!.line(BODY, 1_700_000_000);
    const bytes = Buffer.from(line.split(' ')[2]!, 'base64');
    bytes.writeBigUInt64BE(1_700_000_001n, 4);
    const retimed = `— w1.example ${bytes.toString('base64')}`;
    expect(
      await codeOf(() =>
        verifyCheckpoint(noteOf(BODY, [log.line(BODY), retimed]), {
          log: logKey,
          witnesses,
          quorum: 1,
        }),
      ),
    ).toBe('SIGNATURE_INVALID');
  });

  it('refuses a quorum larger than the trusted witnesses and witness keys given as the log key', async () => {
    const note = noteOf(BODY, [log.line(BODY)]);
    expect(await codeOf(() => verifyCheckpoint(note, { log: logKey, witnesses, quorum: 4 }))).toBe(
      'QUORUM_NOT_MET',
    );
    expect(await codeOf(() => verifyCheckpoint(note, { log: witnesses[0]!, witnesses: [] }))).toBe(
      'VKEY_INVALID',
    );
    expect(
      await codeOf(() => verifyCheckpoint(note, { log: logKey, witnesses: [logKey], quorum: 0 })),
    ).toBe('VKEY_INVALID');
  });
});
