/**
 * C2SP signed-note: a text ending in a newline, a blank line, then signature lines
 * `— <key name> <base64(key id || signature)>`. Parsing checks the format (UTF-8 without
 * control characters other than newline, at most {@link MAX_NOTE_SIGNATURES} signatures, valid
 * names and base64); opening also verifies: signatures by unknown keys are set aside, a known
 * key's bad signature rejects the whole note, and a note no known key signed is refused.
 */
import {
  concatBytes,
  fromBase64,
  fromUtf8,
  hasLoneSurrogate,
  isBytes,
  toBase64,
  utf8,
} from './bytes.js';
import { SIGNATURE_TYPE, isValidKeyName, verifyEd25519, type VerifierKey } from './vkey.js';
import { VerifyError } from './verify-error.js';

/** The most signatures a note may carry (C2SP asks verifiers to accept at least 16). */
export const MAX_NOTE_SIGNATURES = 100;

const DASH = '\u2014 ';

/** One signature line of a note, not yet verified. */
export interface NoteSignature {
  readonly name: string;
  /** The 4-byte key id the signature names, as 8 lowercase hex digits. */
  readonly keyId: string;
  /** The signature bytes after the key id. */
  readonly signature: Uint8Array;
  /** The line as written, without its newline. */
  readonly line: string;
}

/** A note split into its text and signatures. */
export interface Note {
  /** The signed text, final newline included, separating blank line excluded. */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** A signature a trusted key made. */
export interface VerifiedSignature {
  readonly key: VerifierKey;
  readonly line: string;
  /** For a cosignature (type 0x04): when the witness signed, in POSIX seconds. */
  readonly timestamp?: number;
}

/** A note whose signatures were checked against a set of trusted keys. */
export interface OpenedNote {
  readonly text: string;
  /** One per trusted key that signed (a repeated signature counts once). */
  readonly verified: readonly VerifiedSignature[];
  /** Signatures by keys not in the set: ignored, as C2SP requires. */
  readonly unverified: readonly NoteSignature[];
}

/** Splits a note, refusing (`NOTE_MALFORMED`, naming the rule) one that breaks the format. */
export function parseNote(message: string | Uint8Array): Note {
  const text = isBytes(message) ? fromUtf8(message, 'The note') : message;
  if (hasLoneSurrogate(text)) malformed('it is not valid Unicode text');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) {
    malformed('it holds a control character other than newline');
  }
  const split = text.lastIndexOf('\n\n');
  if (split < 0) malformed('it has no blank line before its signatures');
  const body = text.slice(0, split + 1);
  const block = text.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) {
    malformed('its signature lines do not end with a newline');
  }
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) {
    malformed(`it has ${lines.length} signatures, more than ${MAX_NOTE_SIGNATURES}`);
  }
  return { text: body, signatures: lines.map(parseSignatureLine) };
}

function parseSignatureLine(line: string): NoteSignature {
  if (!line.startsWith(DASH)) malformed(`line ${JSON.stringify(line)} is not a signature line`);
  const rest = line.slice(DASH.length);
  const space = rest.indexOf(' ');
  const name = space < 0 ? rest : rest.slice(0, space);
  if (!isValidKeyName(name)) malformed(`signature key name ${JSON.stringify(name)} is not allowed`);
  let bytes: Uint8Array = new Uint8Array(0);
  try {
    bytes = fromBase64(space < 0 ? '' : rest.slice(space + 1), 'signature');
  } catch {
    malformed(`the signature of ${name} is not standard base64`);
  }
  if (bytes.length < 5) malformed(`the signature of ${name} is too short`);
  const keyId = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { name, keyId, signature: bytes.slice(4), line };
}

/** A signature line: `— <name> <base64(key id || signature)>` (no newline). */
export function signatureLine(name: string, keyId: string, signature: Uint8Array): string {
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/.test(keyId)) {
    throw new VerifyError('NOTE_MALFORMED', `Cannot sign as ${JSON.stringify(name)}+${keyId}.`);
  }
  const id = new Uint8Array(keyId.match(/../g)!.map((pair) => parseInt(pair, 16)));
  return `${DASH}${name} ${toBase64(concatBytes(id, signature))}`;
}

/**
 * A note made of `text` (ending in a newline) and signature lines; a line already present is
 * kept once. The result parses back to the same text and lines.
 */
export function formatNote(text: string, lines: readonly string[]): string {
  if (!text.endsWith('\n')) malformed('its text does not end with a newline');
  const note = `${text}\n${[...new Set(lines)].join('\n')}\n`;
  if (parseNote(note).text !== text) malformed('its text holds what reads as a signature block');
  return note;
}

/** `note` with `lines` added after its signatures (each kept once). */
export function addSignatureLines(note: string, lines: readonly string[]): string {
  const parsed = parseNote(note);
  return formatNote(parsed.text, [...parsed.signatures.map((s) => s.line), ...lines]);
}

/**
 * Parses and verifies a note against trusted `keys`. Throws `NOTE_MALFORMED` for a bad format,
 * `SIGNATURE_INVALID` when a trusted key's signature does not verify, `NOTE_UNVERIFIED` when no
 * trusted key signed, `VKEY_INVALID` when two trusted keys share a name and key id.
 */
export async function openNote(
  message: string | Uint8Array,
  keys: readonly VerifierKey[],
): Promise<OpenedNote> {
  const note = parseNote(message);
  const byNameAndId = new Map<string, VerifierKey>();
  for (const key of keys) {
    const handle = `${key.name}+${key.keyId}`;
    if (byNameAndId.has(handle)) {
      throw new VerifyError('VKEY_INVALID', `Two trusted keys are named ${handle}.`, { handle });
    }
    byNameAndId.set(handle, key);
  }
  const verified = new Map<string, VerifiedSignature>();
  const unverified = new Map<string, NoteSignature>();
  for (const signature of note.signatures) {
    const key = byNameAndId.get(`${signature.name}+${signature.keyId}`);
    if (key === undefined) {
      unverified.set(signature.line, signature);
      continue;
    }
    const checked = await verifySignature(key, signature, note.text);
    if (!verified.has(key.line)) verified.set(key.line, checked);
  }
  if (verified.size === 0) {
    throw new VerifyError(
      'NOTE_UNVERIFIED',
      `No trusted key signed the note (signed by ${note.signatures.map((s) => `${s.name}+${s.keyId}`).join(', ')}).`,
    );
  }
  return {
    text: note.text,
    verified: [...verified.values()],
    unverified: [...unverified.values()],
  };
}

async function verifySignature(
  key: VerifierKey,
  signature: NoteSignature,
  text: string,
): Promise<VerifiedSignature> {
  if (key.type === SIGNATURE_TYPE.ed25519) {
    if (!(await verifyEd25519(key, signature.signature, utf8(text)))) throw badSignature(key);
    return { key, line: signature.line };
  }
  // C2SP tlog-cosignature v1: an 8-byte big-endian POSIX timestamp, then the Ed25519 signature
  // of `cosignature/v1\ntime <timestamp>\n<checkpoint text>`.
  const bytes = signature.signature;
  if (bytes.length !== 8 + 64) throw badSignature(key);
  const timestamp = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
  // Past 2^53 - 1 seconds is hundreds of millions of years ahead: refused as a future time.
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) throw badSignature(key);
  const message = utf8(cosignatureMessage(Number(timestamp), text));
  if (!(await verifyEd25519(key, bytes.subarray(8), message))) throw badSignature(key);
  return { key, line: signature.line, timestamp: Number(timestamp) };
}

/** The message a cosignature/v1 signs for a checkpoint `text` at `timestamp` (POSIX seconds). */
export function cosignatureMessage(timestamp: number, text: string): string {
  return `cosignature/v1\ntime ${timestamp}\n${text}`;
}

function badSignature(key: VerifierKey): VerifyError {
  return new VerifyError(
    'SIGNATURE_INVALID',
    `The signature of trusted key ${key.name}+${key.keyId} does not verify.`,
    { name: key.name, keyId: key.keyId },
  );
}

function malformed(why: string): never {
  throw new VerifyError('NOTE_MALFORMED', `The note is malformed: ${why}.`);
}
