/**
 * Test signers for notes, written from the C2SP text with node:crypto alone (independent of
 * src/tlog's signer): Ed25519 note keys (type 0x01) and cosignature/v1 witness keys (0x04).
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** A key that signs note lines. */
export interface TestSigner {
  readonly name: string;
  readonly vkey: string;
  /** The signature line (no newline) over a note text. */
  line(text: string, timestamp?: number): string;
}

function publicBytes(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(-32);
}

function keyId(name: string, type: number, pub: Buffer): Buffer {
  return createHash('sha256')
    .update(`${name}\n`)
    .update(Buffer.from([type]))
    .update(pub)
    .digest()
    .subarray(0, 4);
}

/** An Ed25519 note signer (type 0x01). */
export function testLogSigner(name: string): TestSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = publicBytes(publicKey);
  const id = keyId(name, 0x01, pub);
  return {
    name,
    vkey: `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.from([1]), pub]).toString('base64')}`,
    line: (text) =>
      `— ${name} ${Buffer.concat([id, sign(null, Buffer.from(text), privateKey)]).toString('base64')}`,
  };
}

/** A cosignature/v1 witness (type 0x04): timestamp (u64 BE) || Ed25519 signature. */
export function testWitness(name: string): TestSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = publicBytes(publicKey);
  const id = keyId(name, 0x04, pub);
  return {
    name,
    vkey: `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.from([4]), pub]).toString('base64')}`,
    line: (text, timestamp = 1_700_000_000) => {
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(BigInt(timestamp));
      const message = Buffer.from(`cosignature/v1\ntime ${timestamp}\n${text}`);
      return `— ${name} ${Buffer.concat([id, time, sign(null, message, privateKey)]).toString('base64')}`;
    },
  };
}

/** A note: text, blank line, signature lines. */
export const noteOf = (text: string, lines: readonly string[]) =>
  `${text}\n${lines.map((l) => `${l}\n`).join('')}`;
