/**
 * A C2SP tlog-witness: it cosigns a log's checkpoint only after checking the log's signature
 * and a consistency proof from the latest checkpoint it cosigned for that origin, and it stores
 * the new one before it answers. A log key named `N` covers the origins `N` and `N/<anything>`
 * (memledger's are `<log name>/<memory id>`, one per memory under one key).
 */
import { createHash } from 'node:crypto';
import {
  SIGNATURE_TYPE,
  consistencySteps,
  equalBytes,
  isVerifyError,
  openNote,
  parseCheckpoint,
  parseNote,
  runHashSteps,
  type Checkpoint,
  type VerifierKey,
} from '../../verify/index.js';
import { cosignatureLine } from '../checkpoint-signing.js';
import type { NoteSigner } from '../note-signer.js';
import { emptyTreeRoot, nodeHashOf } from '../tree-hash.js';
import {
  MalformedRequest,
  parseAddCheckpointBody,
  type AddCheckpointBody,
} from './add-checkpoint-body.js';
import type { WitnessState, WitnessedCheckpoint } from './witness-state.js';

/** What a witness needs. */
export interface WitnessOptions {
  /** The witness's own key (type 0x04, cosignature/v1). */
  readonly key: NoteSigner;
  /** The log keys it trusts (type 0x01). */
  readonly logs: readonly VerifierKey[];
  readonly state: WitnessState;
  /** The time cosignatures carry, in POSIX seconds. @defaultValue the system clock */
  readonly now?: () => number;
}

/** An HTTP answer. */
export interface WitnessResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const TEXT = 'text/plain; charset=utf-8';
const answer = (status: number, body: string, contentType = TEXT): WitnessResponse => ({
  status,
  contentType,
  body: body.endsWith('\n') ? body : `${body}\n`,
});

/** A refusal decided inside the state transaction: it rolls back and becomes the answer. */
class Refusal extends Error {
  constructor(readonly response: WitnessResponse) {
    super(response.body);
  }
}

/** A witness over a state file. */
export class Witness {
  private readonly now: () => number;

  constructor(private readonly options: WitnessOptions) {
    if (options.key.type !== SIGNATURE_TYPE.cosignature) {
      throw new TypeError(`Witness key ${options.key.name} is not a cosignature/v1 key.`);
    }
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The witness's verifier key line (type 0x04). */
  get vkey(): string {
    return this.options.key.vkey;
  }

  /** Answers `POST /add-checkpoint` with `body` (C2SP tlog-witness). */
  async addCheckpoint(body: string): Promise<WitnessResponse> {
    let request: AddCheckpointBody;
    let checkpoint: Checkpoint;
    try {
      request = parseAddCheckpointBody(body);
      checkpoint = parseCheckpoint(parseNote(request.note).text);
    } catch (error) {
      if (error instanceof MalformedRequest || isVerifyError(error))
        return answer(400, error.message);
      throw error;
    }
    const keys = this.options.logs.filter((key) => covers(key.name, checkpoint.origin));
    if (keys.length === 0)
      return answer(404, `Unknown log: no trusted key covers origin ${checkpoint.origin}.`);
    try {
      await openNote(request.note, keys);
    } catch (error) {
      if (!isVerifyError(error)) throw error;
      return answer(
        403,
        `The checkpoint is not validly signed by a trusted log key: ${error.message}`,
      );
    }
    if (request.oldSize > checkpoint.size) {
      return answer(
        400,
        `The old size ${request.oldSize} is past the checkpoint size ${checkpoint.size}.`,
      );
    }
    try {
      return this.options.state.update(checkpoint.origin, (latest) =>
        this.decide(request, checkpoint, latest),
      );
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const { response } = error;
      if (response.status === 422) {
        this.options.state.recordRefusal(
          checkpoint.origin,
          response.status,
          response.body.trim(),
          body,
        );
      }
      return response;
    }
  }

  /** Answers `GET /<sha256 hex of origin>/checkpoint`: the latest cosigned note, or 404. */
  checkpointOf(originHash: string): WitnessResponse {
    const origin = this.options.state
      .origins()
      .find((o) => createHash('sha256').update(o, 'utf8').digest('hex') === originHash);
    const latest = origin === undefined ? undefined : this.options.state.latest(origin);
    if (latest === undefined)
      return answer(404, 'This witness has cosigned no checkpoint for that origin.');
    return answer(200, latest.note);
  }

  /** The checks that need the latest state, and the cosignature: all inside the transaction. */
  private decide(
    request: AddCheckpointBody,
    checkpoint: Checkpoint,
    latest: WitnessedCheckpoint | undefined,
  ): { next: WitnessedCheckpoint; result: WitnessResponse } {
    const knownSize = latest?.size ?? 0;
    if (request.oldSize !== knownSize)
      throw new Refusal(answer(409, `${knownSize}\n`, 'text/x.tlog.size'));
    const refuse = (why: string) => new Refusal(answer(422, why));
    if (checkpoint.size === 0 && !equalBytes(checkpoint.root, emptyTreeRoot())) {
      throw refuse('A checkpoint of size 0 must carry the root of the empty tree.');
    }
    if (request.oldSize === 0 && request.proof.length > 0) {
      throw refuse('From old size 0 the consistency proof must be empty.');
    }
    if (latest !== undefined) {
      try {
        const proof = { from: latest.size, to: checkpoint.size, path: request.proof };
        runHashSteps(consistencySteps(proof, latest.root, checkpoint.root), nodeHashOf);
      } catch (error) {
        if (!isVerifyError(error)) throw error;
        throw refuse(
          `Inconsistent with the checkpoint cosigned at size ${latest.size}: ${error.message}`,
        );
      }
    }
    const text = parseNote(request.note).text;
    const line = cosignatureLine(this.options.key, text, this.now());
    const note = `${request.note}${line}\n`;
    const next = {
      origin: checkpoint.origin,
      size: checkpoint.size,
      root: Buffer.from(checkpoint.root),
      note,
    };
    return { next, result: answer(200, `${line}\n`) };
  }
}

/** True when a log key named `name` covers `origin`: the same, or `name/...`. */
export function covers(name: string, origin: string): boolean {
  return origin === name || origin.startsWith(`${name}/`);
}
