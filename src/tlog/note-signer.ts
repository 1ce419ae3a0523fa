/**
 * Ed25519 note keys on the server (node:crypto): the log's key, which signs checkpoints (C2SP
 * signed-note type 0x01), and a witness's key, which cosigns them (type 0x04, cosignature/v1).
 * A private key is written as golang.org/x/mod/sumdb/note writes one —
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(type || 32-byte seed)>` — so the same line works
 * with Go's note tools (for type 0x01) and is checked against its key id when read.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import { MemoryError } from '../core/index.js';
import { SIGNATURE_TYPE, isValidKeyName, type SignatureType } from '../verify/index.js';

/** A key that signs notes. */
export interface NoteSigner {
  readonly name: string;
  /** The 4-byte key id as 8 lowercase hex digits. */
  readonly keyId: string;
  readonly type: SignatureType;
  /** The verifier key line others trust it by: `<name>+<key id>+<base64(type || public key)>`. */
  readonly vkey: string;
  /** The private key line to store (secret). */
  readonly privateKeyLine: string;
  /** The Ed25519 signature of `message`. */
  sign(message: Uint8Array): Buffer;
}

/** DER of a PKCS #8 Ed25519 private key, less its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SEED_BYTES = 32;

function keyIdOf(name: string, type: SignatureType, publicKey: Buffer): string {
  const digest = createHash('sha256')
    .update(`${name}\n`, 'utf8')
    .update(Buffer.from([type]))
    .update(publicKey)
    .digest();
  return digest.subarray(0, 4).toString('hex');
}

/** The signer of an Ed25519 `seed` (32 bytes) under `name`, signing as `type`. */
export function signerFromSeed(name: string, type: SignatureType, seed: Buffer): NoteSigner {
  if (!isValidKeyName(name)) {
    throw malformed(
      `key name ${JSON.stringify(name)} is not allowed (no spaces, no "+", not empty)`,
    );
  }
  if (seed.length !== SEED_BYTES)
    throw malformed(`an Ed25519 seed is 32 bytes, not ${seed.length}`);
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey)
    .export({ format: 'der', type: 'spki' })
    .subarray(-32);
  const keyId = keyIdOf(name, type, publicKey);
  const typed = (bytes: Buffer) => Buffer.concat([Buffer.from([type]), bytes]).toString('base64');
  return {
    name,
    keyId,
    type,
    vkey: `${name}+${keyId}+${typed(publicKey)}`,
    privateKeyLine: `PRIVATE+KEY+${name}+${keyId}+${typed(seed)}`,
    sign: (message) => sign(null, message, privateKey),
  };
}

/** A new random key under `name`: a log key (type 0x01) or a witness key (0x04). */
export function generateSigner(
  name: string,
  type: SignatureType = SIGNATURE_TYPE.ed25519,
): NoteSigner {
  return signerFromSeed(name, type, randomBytes(SEED_BYTES));
}

/**
 * The signer of a private key line, refusing (`LOG_KEY_MALFORMED`, naming the rule) anything
 * else: wrong prefix, bad name, key id not 8 hex digits or not matching the key, a type other
 * than `expected` (a witness key where a log key is needed), a seed that is not 32 bytes.
 */
export function parsePrivateKeyLine(line: string, expected?: SignatureType): NoteSigner {
  const parts = line.split('+');
  // The base64 key may itself hold "+": everything after the fourth "+" is the key.
  const [private1, private2, name, keyId] = parts;
  const key = parts.slice(4).join('+');
  if (private1 !== 'PRIVATE' || private2 !== 'KEY' || parts.length < 5) {
    throw malformed('it is not PRIVATE+KEY+<name>+<key id>+<key>');
  }
  if (!/^[0-9a-f]{8}$/.test(keyId!)) throw malformed('the key id is not 8 lowercase hex digits');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw malformed('the key is not base64');
  const material = Buffer.from(key, 'base64');
  const type = material[0];
  if (type !== SIGNATURE_TYPE.ed25519 && type !== SIGNATURE_TYPE.cosignature) {
    throw malformed(`signature type ${String(type)} is not Ed25519 (1) or cosignature/v1 (4)`);
  }
  if (expected !== undefined && type !== expected) {
    throw malformed(
      type === SIGNATURE_TYPE.cosignature
        ? 'it is a witness key (cosignature/v1), not a log key'
        : 'it is a log key, not a witness key (cosignature/v1)',
    );
  }
  const signer = signerFromSeed(name!, type, material.subarray(1));
  if (signer.keyId !== keyId) throw malformed('the key id does not match the key');
  return signer;
}

function malformed(why: string): MemoryError {
  return new MemoryError('LOG_KEY_MALFORMED', `The private key is malformed: ${why}.`);
}
