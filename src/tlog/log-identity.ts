/**
 * Who the log is: its name (the first part of every origin `<log name>/<memory id>`) and, when
 * the operator gave one, the key that signs its checkpoints; and the witnesses it asks to
 * cosign. Read from `MEMLEDGER_LOG_KEY`, `MEMLEDGER_LOG_NAME` and `MEMLEDGER_WITNESSES`.
 */
import { hostname } from 'node:os';
import { MemoryError } from '../core/index.js';
import { logKeyFromEnv } from './key-file.js';
import type { NoteSigner } from './note-signer.js';
import { parseWitnessList, type WitnessEndpoint } from './witness/witness-client.js';

/** The log's name, its signing key (absent: unsigned) and its witnesses. */
export interface LogIdentity {
  /** The log name: the signing key's name when there is one. */
  readonly name: string;
  readonly signer?: NoteSigner;
  readonly witnesses: readonly WitnessEndpoint[];
}

/** The log name when none is configured: stable for a host, `<host name>/memledger`. */
export function defaultLogName(): string {
  return `${hostname() || 'localhost'}/memledger`;
}

/**
 * The log name to use with `signer`: the key's own name (a key named N signs the origins
 * N/<memory id>), which `name`, when given, must equal (`LOG_KEY_MALFORMED` otherwise); without a
 * key, `name` or {@link defaultLogName}.
 */
export function logNameFor(signer: NoteSigner | undefined, name: string | undefined): string {
  const wanted = name?.trim() || undefined;
  if (signer && wanted !== undefined && wanted !== signer.name) {
    throw new MemoryError(
      'LOG_KEY_MALFORMED',
      `MEMLEDGER_LOG_NAME is ${JSON.stringify(wanted)} but the log key is named ${JSON.stringify(signer.name)}: a key signs the origins of its own name (unset MEMLEDGER_LOG_NAME, or make a key with that name).`,
      { details: { name: wanted, keyName: signer.name } },
    );
  }
  return signer?.name ?? wanted ?? defaultLogName();
}

/**
 * The identity the environment names. A key file that is set but bad, a name that contradicts
 * the key, or a bad witness entry throws: a server must not start unsigned or unwitnessed by
 * mistake.
 */
export async function logIdentityFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Promise<LogIdentity> {
  const signer = logKeyFromEnv(env);
  const name = logNameFor(signer, env.MEMLEDGER_LOG_NAME);
  const witnesses = await parseWitnessList(env.MEMLEDGER_WITNESSES ?? '');
  return { name, witnesses, ...(signer ? { signer } : {}) };
}

/** One line for the operator at start: who signs, or that nothing does. */
export function logIdentityLine(identity: LogIdentity): string {
  const witnesses =
    identity.witnesses.length === 0
      ? 'no witnesses'
      : `witnesses ${identity.witnesses.map((w) => `${w.key.name} (${w.url})`).join(', ')}`;
  if (identity.signer === undefined) {
    return `verifiable log ${identity.name}: UNSIGNED (MEMLEDGER_LOG_KEY is not set): roots and proofs are served without a signature; create a key with memledger keygen`;
  }
  return `verifiable log ${identity.name}: checkpoints signed by ${identity.signer.vkey}; ${witnesses}`;
}
