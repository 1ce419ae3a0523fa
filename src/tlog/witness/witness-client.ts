/**
 * Asking witnesses to cosign a checkpoint (C2SP tlog-witness, client side), as the server does
 * for each new checkpoint: one `add-checkpoint` per witness, starting from the size it last
 * cosigned (0 the first time: its 409 answer says where it stands, and the request is made once
 * more with a proof from there). Only cosignatures that verify under the witness's own key are
 * attached; a witness that fails is reported, never fatal.
 */
import {
  SIGNATURE_TYPE,
  addSignatureLines,
  openNote,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  type VerifierKey,
} from '../../verify/index.js';
import { MemoryError } from '../../core/index.js';
import { formatAddCheckpointBody } from './add-checkpoint-body.js';

/** A witness to ask: its cosignature key and its submission URL prefix. */
export interface WitnessEndpoint {
  readonly key: VerifierKey;
  /** The submission prefix: requests go to `<url>/add-checkpoint`. */
  readonly url: string;
}

/** What one witness did with a checkpoint. */
export interface WitnessResult {
  readonly witness: string;
  readonly ok: boolean;
  /** Why it failed: the status and the witness's words, or the network error. */
  readonly reason?: string;
}

/** The consistency path from `oldSize` to the checkpoint being cosigned. */
export type ProofFrom = (oldSize: number) => readonly Uint8Array[] | Promise<readonly Uint8Array[]>;

/** Options of {@link WitnessClient}. */
export interface WitnessClientOptions {
  /** How long one request may take. @defaultValue 5000 */
  readonly timeoutMs?: number;
}

/**
 * Reads `MEMLEDGER_WITNESSES`: entries separated by commas or white space, each
 * `<witness verifier key>=<http(s) URL>`. The key is split off at the `=` that starts the URL
 * (a key's base64 may itself end in `=`). `VALIDATION_FAILED` names a bad entry.
 */
export async function parseWitnessList(text: string): Promise<WitnessEndpoint[]> {
  const entries = text.split(/[\s,]+/).filter((entry) => entry.length > 0);
  return Promise.all(
    entries.map(async (entry) => {
      const at = entry.search(/=https?:\/\//);
      if (at < 0) throw invalidEntry(entry, 'it is not <verifier key>=<http(s) URL>');
      try {
        const key = await parseVerifierKey(entry.slice(0, at), SIGNATURE_TYPE.cosignature);
        const url = new URL(entry.slice(at + 1)).toString().replace(/\/+$/, '');
        return { key, url };
      } catch (error) {
        throw invalidEntry(entry, (error as Error).message);
      }
    }),
  );
}

function invalidEntry(entry: string, why: string): MemoryError {
  return new MemoryError(
    'VALIDATION_FAILED',
    `Witness ${JSON.stringify(entry)} is invalid: ${why}`,
    {
      issues: [{ path: 'MEMLEDGER_WITNESSES', message: why }],
    },
  );
}

/** Asks witnesses for cosignatures, remembering where each stands per origin. */
export class WitnessClient {
  private readonly known = new Map<string, number>();
  private readonly timeoutMs: number;

  constructor(
    private readonly witnesses: readonly WitnessEndpoint[],
    options: WitnessClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * `note` (a log-signed checkpoint) with the cosignatures of every witness that gave a valid
   * one, and what each witness did.
   */
  async cosign(
    note: string,
    proofFrom: ProofFrom,
  ): Promise<{ note: string; results: WitnessResult[] }> {
    const checkpoint = parseCheckpoint(parseNote(note).text);
    const answers = await Promise.all(
      this.witnesses.map((w) => this.ask(w, note, checkpoint, proofFrom)),
    );
    const lines = answers.flatMap((a) => a.lines);
    return {
      note: lines.length === 0 ? note : addSignatureLines(note, lines),
      results: answers.map((a) => a.result),
    };
  }

  private async ask(
    witness: WitnessEndpoint,
    note: string,
    checkpoint: { origin: string; size: number },
    proofFrom: ProofFrom,
  ): Promise<{ lines: string[]; result: WitnessResult }> {
    const name = `${witness.key.name}+${witness.key.keyId}`;
    const slot = `${witness.key.line} ${checkpoint.origin}`;
    const fail = (reason: string) => ({ lines: [], result: { witness: name, ok: false, reason } });
    try {
      let oldSize = Math.min(this.known.get(slot) ?? 0, checkpoint.size);
      for (let attempt = 0; attempt < 2; attempt++) {
        const proof = oldSize === 0 ? [] : await proofFrom(oldSize);
        const response = await this.post(
          witness,
          formatAddCheckpointBody({ oldSize, proof, note }),
        );
        const body = await response.text();
        if (response.status === 409 && attempt === 0) {
          const size = Number(body.trim());
          if (!Number.isSafeInteger(size) || size < 0)
            return fail(`409 with an unreadable size: ${body.trim()}`);
          if (size > checkpoint.size) {
            return fail(`it has cosigned size ${size}, past this checkpoint's ${checkpoint.size}`);
          }
          oldSize = size;
          continue;
        }
        if (response.status !== 200) return fail(`${response.status}: ${body.trim()}`);
        const lines = await this.validLines(witness.key, note, body);
        if (lines.length === 0) return fail('200 without a valid cosignature by its key');
        this.known.set(slot, checkpoint.size);
        return { lines, result: { witness: name, ok: true } };
      }
      return fail('409 twice');
    } catch (error) {
      return fail((error as Error).message);
    }
  }

  private post(witness: WitnessEndpoint, body: string): Promise<Response> {
    return fetch(`${witness.url}/add-checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }

  /** The response's signature lines that are valid cosignatures by `key` of `note`. */
  private async validLines(key: VerifierKey, note: string, body: string): Promise<string[]> {
    const lines = body.split('\n').filter((line) => line.length > 0);
    if (lines.length === 0) return [];
    try {
      const opened = await openNote(addSignatureLines(note, lines), [key]);
      return opened.verified.map((signature) => signature.line);
    } catch {
      return [];
    }
  }
}
