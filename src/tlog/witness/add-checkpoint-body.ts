/**
 * The body of a C2SP tlog-witness `add-checkpoint` request: `old <size>`, up to 63 base64
 * consistency proof lines, an empty line, then the signed checkpoint note. Each line ends in a
 * newline; sizes are decimals without leading zeros.
 */
import { fromBase64 } from '../../verify/index.js';

/** The most proof lines a request may carry. */
export const MAX_PROOF_LINES = 63;

/** An `add-checkpoint` request, read. */
export interface AddCheckpointBody {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  /** The checkpoint note, with its signatures. */
  readonly note: string;
}

/** Why a body could not be read (the witness answers 400 with it). */
export class MalformedRequest extends Error {
  override readonly name = 'MalformedRequest';
}

const SIZE = /^(?:0|[1-9][0-9]*)$/;

/** Reads a request body, throwing {@link MalformedRequest} saying what is wrong. */
export function parseAddCheckpointBody(body: string): AddCheckpointBody {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw new MalformedRequest('The body has no empty line before the checkpoint.');
  const [oldLine, ...proofLines] = body.slice(0, blank).split('\n');
  const oldText = oldLine!.startsWith('old ') ? oldLine!.slice(4) : '';
  const oldSize = Number(oldText);
  if (!SIZE.test(oldText) || !Number.isSafeInteger(oldSize)) {
    throw new MalformedRequest(
      `The first line must be "old <size>", not ${JSON.stringify(oldLine)}.`,
    );
  }
  if (proofLines.length > MAX_PROOF_LINES) {
    throw new MalformedRequest(
      `The body has ${proofLines.length} proof lines; at most ${MAX_PROOF_LINES} are allowed.`,
    );
  }
  const proof = proofLines.map((line, i) => {
    try {
      const hash = fromBase64(line, `proof line ${i + 1}`);
      if (hash.length !== 32) throw new Error('not 32 bytes');
      return hash;
    } catch {
      throw new MalformedRequest(`Proof line ${i + 1} is not a base64 32-byte hash.`);
    }
  });
  return { oldSize, proof, note: body.slice(blank + 2) };
}

/** Writes a request body for {@link parseAddCheckpointBody}. */
export function formatAddCheckpointBody(request: AddCheckpointBody): string {
  const proof = request.proof.map((hash) => `${Buffer.from(hash).toString('base64')}\n`).join('');
  return `old ${request.oldSize}\n${proof}\n${request.note}`;
}
