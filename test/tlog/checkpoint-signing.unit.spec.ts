/**
 * Note keys and checkpoint signing: golang.org/x/mod/sumdb/note's signing vector (Ed25519 is
 * deterministic, so the same key and text give the same note, byte for byte), private key lines
 * refused when mangled, and the guard that refuses to sign a checkpoint inconsistent with the
 * last one signed.
 */
import { isMemoryError } from '../../src/core/index.js';
import {
  assertExtends,
  cosignatureLine,
  signCheckpoint,
} from '../../src/tlog/checkpoint-signing.js';
import { InMemoryTree } from '../../src/tlog/in-memory-tree.js';
import { generateSigner, parsePrivateKeyLine } from '../../src/tlog/note-signer.js';
import {
  SIGNATURE_TYPE,
  formatNote,
  parseVerifierKey,
  signatureLine,
  verifyCheckpoint,
} from '../../src/verify/index.js';
import { sampleLeafHashes } from '../verify/reference-merkle.js';

const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const WANT = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return isMemoryError(error) ? error.code : String(error);
  }
  return undefined;
};

describe('note keys', () => {
  it("signs Go's example text exactly as Go does, and derives Go's verifier key", () => {
    const signer = parsePrivateKeyLine(PETER_SKEY);
    expect(signer.vkey).toBe('PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
    expect(signer.privateKeyLine).toBe(PETER_SKEY);
    const note = formatNote(TEXT, [
      signatureLine(signer.name, signer.keyId, signer.sign(Buffer.from(TEXT))),
    ]);
    expect(note).toBe(WANT);
  });

  it('refuses every substring and every one-character change of a private key line (as Go does)', () => {
    const chars = [...PETER_SKEY];
    const codes = new Set<string | undefined>();
    for (let i = 0; i <= chars.length; i++) {
      for (let j = i + 1; j <= chars.length; j++) {
        if (i === 0 && j === chars.length) continue;
        codes.add(codeOf(() => parsePrivateKeyLine(chars.slice(i, j).join(''))));
      }
    }
    for (let i = 0; i < chars.length; i++) {
      const changed = [...chars];
      changed[i] = String.fromCharCode(changed[i]!.charCodeAt(0) + 1);
      codes.add(codeOf(() => parsePrivateKeyLine(changed.join(''))));
    }
    expect([...codes]).toEqual(['LOG_KEY_MALFORMED']);
  });

  it('refuses a witness key where a log key is needed, and the other way round', () => {
    const witness = generateSigner('w.example', SIGNATURE_TYPE.cosignature);
    expect(() => parsePrivateKeyLine(witness.privateKeyLine, SIGNATURE_TYPE.ed25519)).toThrow(
      'is a witness key',
    );
    expect(() => parsePrivateKeyLine(PETER_SKEY, SIGNATURE_TYPE.cosignature)).toThrow(
      'is a log key',
    );
  });

  it('generates keys whose verifier key lines the verifier reads back', async () => {
    for (const type of [SIGNATURE_TYPE.ed25519, SIGNATURE_TYPE.cosignature]) {
      const signer = generateSigner('log.example/memledger', type);
      const key = await parseVerifierKey(signer.vkey, type);
      expect([key.name, key.keyId]).toEqual([signer.name, signer.keyId]);
      expect(parsePrivateKeyLine(signer.privateKeyLine).vkey).toBe(signer.vkey);
    }
    expect(() => generateSigner('has space')).toThrow('is not allowed');
  });
});

describe('checkpoint signing', () => {
  const hashes = sampleLeafHashes(40, 'sign');
  const tree = new InMemoryTree();
  tree.append(...hashes);
  const other = new InMemoryTree();
  other.append(...sampleLeafHashes(40, 'other'));
  const head = (size: number, t = tree) => ({ size, root: t.root(size) });
  const log = generateSigner('log.example');

  it('signs a checkpoint the verifier accepts, with the origin and head given', async () => {
    const note = signCheckpoint(log, {
      origin: 'log.example/default',
      head: head(17),
      last: null,
      proof: [],
    });
    const checkpoint = await verifyCheckpoint(note, {
      log: await parseVerifierKey(log.vkey),
      origin: 'log.example/default',
    });
    expect([checkpoint.size, Buffer.from(checkpoint.root)]).toEqual([17, tree.root(17)]);
  });

  it('signs a checkpoint that extends the last one, with its consistency proof', () => {
    const next = {
      origin: 'o',
      head: head(30),
      last: head(17),
      proof: tree.consistencyPath(17, 30),
    };
    expect(() => signCheckpoint(log, next)).not.toThrow();
    expect(codeOf(() => assertExtends(head(30), head(30), []))).toBeUndefined();
  });

  it.each([
    ['a smaller size', () => assertExtends(head(30), head(17), [])],
    ['another root at the same size', () => assertExtends(head(30), head(30, other), [])],
    [
      'a rewritten history',
      () => assertExtends(head(17, other), head(30), tree.consistencyPath(17, 30)),
    ],
    [
      'a proof from another tree',
      () => assertExtends(head(17), head(30), other.consistencyPath(17, 30)),
    ],
    [
      'a truncated proof',
      () => assertExtends(head(17), head(30), tree.consistencyPath(17, 30).slice(1)),
    ],
    ['no proof', () => assertExtends(head(17), head(30), [])],
  ])('refuses %s, loudly', (_what, work) => {
    expect(codeOf(work)).toBe('CHECKPOINT_INCONSISTENT');
  });

  it('says why it refused', () => {
    expect(() => assertExtends(head(30), head(17), [])).toThrow(
      'Refusing to sign a checkpoint at size 17 that does not extend the one signed at size 30: The tree size went down from 30 to 17.',
    );
  });

  it('cosigns with a witness key only, and its cosignature meets a quorum of one', async () => {
    const witness = generateSigner('w.example', SIGNATURE_TYPE.cosignature);
    const note = signCheckpoint(log, { origin: 'o', head: head(9), last: null, proof: [] });
    const text = note.slice(0, note.indexOf('\n\n') + 1);
    const cosigned = `${note}${cosignatureLine(witness, text, 1_750_000_000)}\n`;
    const checkpoint = await verifyCheckpoint(cosigned, {
      log: await parseVerifierKey(log.vkey),
      witnesses: [await parseVerifierKey(witness.vkey)],
      quorum: 1,
    });
    expect(checkpoint.cosignatures.map((c) => c.timestamp)).toEqual([1_750_000_000]);
    expect(() => cosignatureLine(log, text, 1)).toThrow('is a log key');
    expect(() =>
      signCheckpoint(witness, { origin: 'o', head: head(9), last: null, proof: [] }),
    ).toThrow('is a witness key');
  });
});
