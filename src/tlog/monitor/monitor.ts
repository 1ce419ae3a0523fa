/**
 * The monitor a customer runs on a schedule (`memledger checkpoint`): it fetches a memory's
 * signed checkpoint, verifies the log's signature (and a witness quorum), and — when it saved
 * one before — that the new checkpoint extends the saved one, by the server's consistency proof.
 * It saves the new note only when every check passed; otherwise it keeps both notes and the
 * proof as evidence and reports a violation. Verification is memledger/verify's.
 */
import { MemoryError } from '../../core/index.js';
import {
  SIGNATURE_TYPE,
  isVerifyError,
  parseConsistencyProof,
  parseVerifierKey,
  toBase64,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  type VerifiedCheckpoint,
  type VerifierKey,
} from '../../verify/index.js';
import {
  keepEvidence,
  readSavedNote,
  writeFileAtomically,
  type Evidence,
} from './monitor-files.js';

/** What to watch, and whom to trust. */
export interface MonitorOptions {
  /** The memledger server, e.g. `https://memory.example.com`. */
  readonly url: string;
  readonly memory: string;
  /** Where the last verified checkpoint note is kept. */
  readonly statePath: string;
  /** The log's verifier key line; without it, the key the server presents is trusted and said so. */
  readonly vkey?: string;
  /** Witness verifier key lines (cosignature/v1). */
  readonly witnesses?: readonly string[];
  /** Distinct witnesses that must have cosigned. @defaultValue all of `witnesses` */
  readonly quorum?: number;
  /**
   * A credential with the read right on the memory (an access key, a JWT or the API token), sent
   * as `Authorization: Bearer` with every request.
   * @defaultValue none (a server that authenticates nobody)
   */
  readonly key?: string;
  /** @defaultValue 10000 */
  readonly timeoutMs?: number;
  /** @defaultValue the system clock */
  readonly now?: () => Date;
}

/** The outcome: lines for people, and the evidence files when a check failed. */
export interface MonitorReport {
  readonly ok: boolean;
  readonly lines: readonly string[];
  readonly evidence: readonly string[];
}

/** A failed check: the report says why and points at the evidence. */
class Violation extends Error {
  constructor(
    message: string,
    readonly evidence: Evidence,
  ) {
    super(message);
  }
}

/** Runs one check. Throws for what is not a violation: the server unreachable, bad options. */
export async function runMonitor(options: MonitorOptions): Promise<MonitorReport> {
  const lines: string[] = [];
  const base = options.url.replace(/\/+$/, '');
  const key = options.key?.trim();
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  const get = (path: string) =>
    fetchText(`${base}${path}`, {
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  const memoryPath = `/api/memories/${encodeURIComponent(options.memory)}`;
  let vkey = options.vkey?.trim();
  if (vkey === undefined) {
    vkey = (await get('/api/log-key')).trim();
    lines.push(`warning: no --vkey given: trusting the key the server presents, ${vkey}`);
  }
  const log = await parseVerifierKey(vkey, SIGNATURE_TYPE.ed25519);
  const witnesses = await Promise.all(
    (options.witnesses ?? []).map((line) =>
      parseVerifierKey(line.trim(), SIGNATURE_TYPE.cosignature),
    ),
  );
  const saved = readSavedNote(options.statePath);
  const fetched = await get(`${memoryPath}/checkpoint`);
  try {
    const result = await check(
      { log, witnesses, quorum: options.quorum, origin: `${log.name}/${options.memory}` },
      { saved, fetched },
      (from, to) => get(`${memoryPath}/proofs/consistency?from=${from}&to=${to}`),
    );
    writeFileAtomically(options.statePath, fetched);
    return { ok: true, lines: [...lines, ...result, `saved ${options.statePath}`], evidence: [] };
  } catch (error) {
    if (!(error instanceof Violation)) throw error;
    const evidence = keepEvidence(
      options.statePath,
      (options.now ?? (() => new Date()))(),
      error.evidence,
    );
    const kept = evidence.length === 0 ? [] : [`evidence kept: ${evidence.join(', ')}`];
    return { ok: false, lines: [...lines, `violation: ${error.message}`, ...kept], evidence };
  }
}

interface Trust {
  readonly log: VerifierKey;
  readonly witnesses: readonly VerifierKey[];
  readonly quorum: number | undefined;
  readonly origin: string;
}

/** The checks, in order; each failure is a {@link Violation} carrying what it saw. */
async function check(
  trust: Trust,
  notes: { saved: string | undefined; fetched: string },
  proofText: (from: number, to: number) => Promise<string>,
): Promise<string[]> {
  const { saved, fetched } = notes;
  const evidence: Evidence = { ...(saved === undefined ? {} : { saved }), fetched };
  const current = await verified(fetched, trust, 'The checkpoint the server gave', evidence);
  const cosigned = current.cosignatures.map((c) => c.key.name);
  const witnessLine =
    trust.witnesses.length === 0 ? [] : [`cosigned by ${cosigned.join(', ') || 'no witness'}`];
  if (saved === undefined) {
    return [
      `first checkpoint of ${current.origin}: size ${current.size}, root ${toBase64(current.root)}`,
      ...witnessLine,
    ];
  }
  // The saved note passed its quorum when it was saved; now only the log's signature matters.
  const logOnly = { ...trust, witnesses: [], quorum: 0 };
  const previous = await verified(saved, logOnly, 'The saved checkpoint', evidence);
  if (current.size < previous.size) {
    throw new Violation(
      `${current.origin} went back from size ${previous.size} to ${current.size}.`,
      evidence,
    );
  }
  if (current.size === previous.size) {
    if (toBase64(current.root) !== toBase64(previous.root)) {
      throw new Violation(
        `${current.origin} has two roots at size ${current.size}: the history was rewritten.`,
        evidence,
      );
    }
    return [`ok: ${current.origin} is still at size ${current.size}`, ...witnessLine];
  }
  const text = await proofText(previous.size, current.size);
  try {
    await verifyCheckpointConsistency(previous, current, parseConsistencyProof(JSON.parse(text)));
  } catch (error) {
    if (!isVerifyError(error) && !(error instanceof SyntaxError)) throw error;
    throw new Violation(
      `${current.origin} at size ${current.size} does not extend the saved checkpoint at size ${previous.size}: ${error.message}`,
      { ...evidence, proof: text },
    );
  }
  return [
    `ok: ${current.origin} grew from size ${previous.size} to ${current.size}; the consistency proof verifies`,
    ...witnessLine,
  ];
}

async function verified(
  note: string,
  trust: Trust,
  what: string,
  evidence: Evidence,
): Promise<VerifiedCheckpoint> {
  const { quorum, ...rest } = trust;
  try {
    return await verifyCheckpoint(note, quorum === undefined ? rest : { ...rest, quorum });
  } catch (error) {
    if (!isVerifyError(error)) throw error;
    throw new Violation(`${what} does not verify [${error.code}]: ${error.message}`, evidence);
  }
}

async function fetchText(url: string, init: RequestInit): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new MemoryError(
      'CHECKPOINT_UNAVAILABLE',
      `Cannot reach ${url}: ${cause}; nothing was saved.`,
      { cause: error },
    );
  }
  const text = await response.text();
  if (response.status === 401 || response.status === 403) throw refusal(text, response.status);
  if (response.status !== 200) {
    throw new MemoryError(
      'CHECKPOINT_UNAVAILABLE',
      `${url} answered ${response.status}: ${text.trim().slice(0, 200)}; nothing was saved.`,
      { details: { status: response.status } },
    );
  }
  return text;
}

/** The server's own refusal (401 `UNAUTHORIZED`, 403 `FORBIDDEN`), as it said it. */
function refusal(text: string, status: number): MemoryError {
  let message = text.trim().slice(0, 200);
  try {
    const said = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof said === 'string') message = said;
  } catch {
    // Not the server's JSON error body: its text is quoted as it is.
  }
  return new MemoryError(status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', message, {
    details: { status },
  });
}
