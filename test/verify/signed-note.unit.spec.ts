/**
 * C2SP signed-note and verifier keys against published vectors: the C2SP specification's own
 * example and golang.org/x/mod/sumdb/note's test notes and keys (PeterNeumann, EnochRoot),
 * including every mangling of a key line that Go's tests require to fail.
 */
import {
  MAX_NOTE_SIGNATURES,
  addSignatureLines,
  formatNote,
  isVerifyError,
  openNote,
  parseNote,
  parseVerifierKey,
  signatureLine,
} from '../../src/verify/index.js';

const PETER_KEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_KEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG =
  '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG =
  '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

async function codeOf(work: () => unknown): Promise<string | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return isVerifyError(error) ? error.code : `not a VerifyError: ${String(error)}`;
  }
}

describe('verifier keys', () => {
  it('reads the C2SP and Go example keys with their names and ids', async () => {
    const peter = await parseVerifierKey(PETER_KEY);
    expect([peter.name, peter.keyId, peter.type, peter.publicKey.length]).toEqual([
      'PeterNeumann',
      'c74f20a3',
      1,
      32,
    ]);
    expect(
      (
        await parseVerifierKey(
          'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
        )
      ).keyId,
    ).toBe('530d903a');
  });

  it('refuses every substring and every one-character change of a key line (as Go does)', async () => {
    const bytes = [...PETER_KEY];
    const refusedWith = new Set<string | undefined>();
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i + 1; j <= bytes.length; j++) {
        if (i === 0 && j === bytes.length) continue;
        refusedWith.add(await codeOf(() => parseVerifierKey(bytes.slice(i, j).join(''))));
      }
    }
    for (let i = 0; i < bytes.length; i++) {
      const changed = [...bytes];
      changed[i] = String.fromCharCode(changed[i]!.charCodeAt(0) + 1);
      refusedWith.add(await codeOf(() => parseVerifierKey(changed.join(''))));
    }
    expect([...refusedWith]).toEqual(['VKEY_INVALID']);
  });

  it('refuses a key of the wrong length or an unknown type even when its key id matches', async () => {
    for (const line of [
      'PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==',
      'PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
    ]) {
      await expect(parseVerifierKey(line)).rejects.toMatchObject({ code: 'VKEY_INVALID' });
    }
  });

  it('refuses a log key where a witness key is needed', async () => {
    await expect(parseVerifierKey(PETER_KEY, 0x04)).rejects.toThrow(
      'type 0x01 where 0x04 is needed',
    );
  });
});

describe('signed notes', () => {
  let peter: Awaited<ReturnType<typeof parseVerifierKey>>;
  let enoch: typeof peter;
  beforeAll(async () => {
    [peter, enoch] = await Promise.all([parseVerifierKey(PETER_KEY), parseVerifierKey(ENOCH_KEY)]);
  });

  it('verifies the C2SP example note', async () => {
    const key = await parseVerifierKey(
      'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
    );
    const note =
      'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';
    const opened = await openNote(note, [key]);
    expect(opened.text).toBe('This is an example message.\n');
    expect(opened.verified.map((s) => s.key.name)).toEqual(['example.com/foo']);
  });

  it('verifies the signatures of trusted keys and sets the others aside', async () => {
    const one = await openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter]);
    expect(one.text).toBe(TEXT);
    expect(one.verified.map((s) => s.key.name)).toEqual(['PeterNeumann']);
    expect(one.unverified.map((s) => `${s.name}+${s.keyId}`)).toEqual(['EnochRoot+af0cfe78']);
    const both = await openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter, enoch]);
    expect(both.verified.map((s) => s.key.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(both.unverified).toEqual([]);
  });

  it('refuses a note no trusted key signed, and accepts bytes as well as text', async () => {
    expect(await codeOf(() => openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, []))).toBe(
      'NOTE_UNVERIFIED',
    );
    const bytes = new TextEncoder().encode(`${TEXT}\n${PETER_SIG}`);
    expect((await openNote(bytes, [peter])).verified).toHaveLength(1);
  });

  it('refuses the whole note when a trusted key signature does not verify', async () => {
    const altered = `${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    expect(await codeOf(() => openNote(`${TEXT}\n${altered}`, [peter]))).toBe('SIGNATURE_INVALID');
    // An unknown key's signature is not checked at all.
    const enochAltered = `${ENOCH_SIG.slice(0, 60)}ABCD${ENOCH_SIG.slice(60)}`;
    const opened = await openNote(
      `${TEXT}\n${PETER_SIG}${PETER_SIG}${ENOCH_SIG}${ENOCH_SIG}${enochAltered}`,
      [peter],
    );
    expect(opened.verified).toHaveLength(1);
    expect(opened.unverified).toHaveLength(2);
  });

  it('refuses two trusted keys with one name and key id', async () => {
    expect(await codeOf(() => openNote(`${TEXT}\n${ENOCH_SIG}`, [enoch, peter, enoch]))).toBe(
      'VKEY_INVALID',
    );
  });

  it(`refuses more than ${MAX_NOTE_SIGNATURES} signatures`, async () => {
    const many = `${TEXT}\n${PETER_SIG.repeat(MAX_NOTE_SIGNATURES + 1)}`;
    expect(await codeOf(() => openNote(many, [peter]))).toBe('NOTE_MALFORMED');
    expect(
      await codeOf(() => openNote(`${TEXT}\n${PETER_SIG.repeat(MAX_NOTE_SIGNATURES)}`, [peter])),
    ).toBeUndefined();
  });

  it.each([
    ['no signature block', TEXT],
    ['no signature after the blank line', `${TEXT}\n`],
    ['a signature line without newline', `${TEXT}\n${PETER_SIG.slice(0, -1)}`],
    ['a control character', `\u0001${TEXT}\n${PETER_SIG}`],
    ['a tab', `a\tb\n\n${PETER_SIG}`],
    ['a carriage return', `${TEXT.replace('\n', '\r\n')}\n${PETER_SIG}`],
    ['a lone surrogate', `\ud800${TEXT}\n${PETER_SIG}`],
    [
      'a name with a space',
      `${TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ],
    ['a name with a plus', `${TEXT}\n— Bad+Name x08go/ZJ=\n`],
    ['a line after the signatures', `${TEXT}\n${PETER_SIG}Unexpected line.\n`],
    ['a hyphen instead of the em dash', `${TEXT}\n${PETER_SIG.replace('—', '-')}`],
    ['base64 without padding', `${TEXT}\n${PETER_SIG.replace('=\n', '\n')}`],
    ['a signature shorter than a key id and one byte', `${TEXT}\n— PeterNeumann AAAAAA==\n`],
  ])('refuses a note with %s', async (_what, note) => {
    expect(await codeOf(() => openNote(note, [peter]))).toBe('NOTE_MALFORMED');
  });

  it('refuses bytes that are not UTF-8', async () => {
    const bytes = new Uint8Array([0xff, ...new TextEncoder().encode(`${TEXT}\n${PETER_SIG}`)]);
    expect(await codeOf(() => openNote(bytes, [peter]))).toBe('ENCODING_INVALID');
  });

  it('takes the last blank line as the separator, so a text may hold blank lines', () => {
    const note = parseNote(`a\n\nb\n\n${PETER_SIG}`);
    expect(note.text).toBe('a\n\nb\n');
  });

  it('formats notes that parse back, and adds signature lines once', () => {
    const line = signatureLine('PeterNeumann', 'c74f20a3', new Uint8Array(64));
    const note = formatNote(TEXT, [line]);
    expect(parseNote(note).signatures.map((s) => s.line)).toEqual([line]);
    const other = signatureLine('w', '00000001', new Uint8Array(72));
    expect(parseNote(addSignatureLines(note, [other, line])).signatures).toHaveLength(2);
    expect(() => formatNote('no newline', [line])).toThrow('does not end with a newline');
  });
});
