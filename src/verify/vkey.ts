/**
 * C2SP signed-note verifier keys: `<key name>+<hex key id>+<base64(type || public key)>`, for the
 * two Ed25519 types memledger uses — `0x01`, a log's note signature, and `0x04`, a witness's
 * timestamped cosignature (C2SP tlog-cosignature). The key id is
 * `SHA-256(name || 0x0A || type || public key)[:4]`, checked when a line is read.
 */
import {
  bufferSource,
  concatBytes,
  fromBase64,
  hasLoneSurrogate,
  toBase64,
  toHex,
  utf8,
} from './bytes.js';
import { sha256 } from './hashing.js';
import { VerifyError } from './verify-error.js';

/** The signature type bytes of C2SP signed-note this module verifies. */
export const SIGNATURE_TYPE = {
  /** Ed25519 over the note text (signed-note). */
  ed25519: 0x01,
  /** Timestamped Ed25519 cosignature/v1 over a checkpoint (tlog-cosignature). */
  cosignature: 0x04,
} as const;

/** A signature type byte this module verifies. */
export type SignatureType = (typeof SIGNATURE_TYPE)[keyof typeof SIGNATURE_TYPE];

/** A parsed, checked verifier key. */
export interface VerifierKey {
  /** The line it was read from (or would be written as). */
  readonly line: string;
  readonly name: string;
  /** The 4-byte key id as 8 lowercase hex digits. */
  readonly keyId: string;
  readonly type: SignatureType;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The key imported into WebCrypto, for verifying. */
  readonly cryptoKey: CryptoKey;
}

const ED25519_KEY_BYTES = 32;

/**
 * True for a key name C2SP signed-note allows: non-empty Unicode text without spaces (any
 * Unicode White_Space), plus signs or control characters.
 */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !hasLoneSurrogate(name) && !/[\p{White_Space}+\p{Cc}]/u.test(name);
}

/** The key id of a key: `SHA-256(name || 0x0A || type || public key)[:4]`, as 8 hex digits. */
export async function keyIdOf(
  name: string,
  type: SignatureType,
  publicKey: Uint8Array,
): Promise<string> {
  const digest = await sha256(concatBytes(utf8(`${name}\n`), new Uint8Array([type]), publicKey));
  return toHex(digest.subarray(0, 4));
}

/** The verifier key line of a public key. */
export async function formatVerifierKey(
  name: string,
  type: SignatureType,
  publicKey: Uint8Array,
): Promise<string> {
  if (!isValidKeyName(name)) throw invalid(name, `key name ${JSON.stringify(name)} is not allowed`);
  const id = await keyIdOf(name, type, publicKey);
  return `${name}+${id}+${toBase64(concatBytes(new Uint8Array([type]), publicKey))}`;
}

/**
 * Reads a verifier key line, refusing (`VKEY_INVALID`, naming the rule) a bad name, a key id
 * that is not 8 lowercase hex digits or does not match the key, a type other than 0x01 and
 * 0x04, a key that is not 32 bytes or that WebCrypto refuses as an Ed25519 public key.
 * `expectedType` refuses a key of the other type (a witness key given as a log key).
 */
export async function parseVerifierKey(
  line: string,
  expectedType?: SignatureType,
): Promise<VerifierKey> {
  const text = line;
  const first = text.indexOf('+');
  const second = text.indexOf('+', first + 1);
  if (first < 0 || second < 0) throw invalid(text, 'it is not <name>+<key id>+<key>');
  const name = text.slice(0, first);
  const keyId = text.slice(first + 1, second);
  if (!isValidKeyName(name)) throw invalid(text, `key name ${JSON.stringify(name)} is not allowed`);
  if (!/^[0-9a-f]{8}$/.test(keyId)) throw invalid(text, 'the key id is not 8 lowercase hex digits');
  let material: Uint8Array;
  try {
    material = fromBase64(text.slice(second + 1), 'the key');
  } catch {
    throw invalid(text, 'the key is not standard base64');
  }
  const type = material[0];
  if (type !== SIGNATURE_TYPE.ed25519 && type !== SIGNATURE_TYPE.cosignature) {
    throw invalid(
      text,
      `signature type ${hexByte(type)} is not Ed25519 (0x01) or cosignature/v1 (0x04)`,
    );
  }
  if (expectedType !== undefined && type !== expectedType) {
    throw invalid(
      text,
      `it is a key of type ${hexByte(type)} where ${hexByte(expectedType)} is needed`,
    );
  }
  const publicKey = material.slice(1);
  if (publicKey.length !== ED25519_KEY_BYTES) {
    throw invalid(text, `an Ed25519 public key is 32 bytes, not ${publicKey.length}`);
  }
  if ((await keyIdOf(name, type, publicKey)) !== keyId) {
    throw invalid(text, 'the key id does not match the name and key');
  }
  const cryptoKey = await importEd25519(publicKey, text);
  return { line: text, name, keyId, type, publicKey, cryptoKey };
}

/** True when `signature` is a valid Ed25519 signature of `message` under `key`. */
export async function verifyEd25519(
  key: VerifierKey,
  signature: Uint8Array,
  message: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return false;
  return globalThis.crypto.subtle.verify(
    { name: 'Ed25519' },
    key.cryptoKey,
    bufferSource(signature),
    bufferSource(message),
  );
}

async function importEd25519(publicKey: Uint8Array, line: string): Promise<CryptoKey> {
  try {
    return await globalThis.crypto.subtle.importKey(
      'raw',
      bufferSource(publicKey),
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
  } catch {
    throw invalid(line, 'the key is not an Ed25519 public key WebCrypto accepts');
  }
}

const hexByte = (byte: number | undefined) =>
  byte === undefined ? 'none' : `0x${byte.toString(16).padStart(2, '0')}`;

function invalid(line: string, why: string): VerifyError {
  return new VerifyError(
    'VKEY_INVALID',
    `Verifier key ${JSON.stringify(line)} is invalid: ${why}.`,
    {
      line,
    },
  );
}
