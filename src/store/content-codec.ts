/**
 * The content codec an adapter applies in its own encode and decode path: on the way in, a
 * caller's plain events are sealed into the form the store keeps; on the way out, stored events
 * are opened back into plain ones (or the erasure marker). Because the adapter holds both forms
 * while it appends, the projections inside its transaction get the plain event and the stored
 * form from the adapter itself. Sealing with per-item keys is the one codec
 * (src/store/sealed/sealing-codec.ts); a store opened without one keeps events as given.
 */
import {
  isValidated,
  parseEventOrErased,
  type MemoryEvent,
  type Sequenced,
} from '../core/index.js';
import type { WalScrubber } from '../db/wal-scrub.js';
import { permitErasure, validateAppendInput, type AppendLimits } from './append-input.js';
import type { ProjectedEvent } from './projection.port.js';

/** Events a read opens together: one key lookup for many events, not one per event. */
const OPEN_BATCH = 256;

/** What a store lends the codec it applies. */
export interface CodecHost {
  /** One event by id as the store keeps it (not opened, not waiting for the codec to be ready). */
  readonly getStored: (memoryId: string, id: string) => Promise<Sequenced | undefined>;
  /** The store's files that hold words, scrubbed after an erasure (none for a remote store). */
  readonly files: readonly { readonly wal: WalScrubber; readonly path: string }[];
}

/** One append's events as the store keeps them, and what to do once it is decided. */
export interface EncodedAppend {
  /** The events to append, in the caller's order, as the store keeps them. */
  readonly stored: readonly MemoryEvent[];
  /**
   * The caller's own (plain) event for a stored one of this append, given its seq: what reads
   * would return, without opening what was just sealed.
   */
  readonly plainOf: (stored: Sequenced) => Sequenced;
  /** Called once with whether the append committed (anything it began is completed or undone). */
  readonly settle: (committed: boolean) => void;
}

/** Seals content on its way into a store and opens it on its way out. */
export interface ContentCodec {
  /** Named in the store's description. */
  readonly description: string;
  /**
   * Starts the codec on the store that applies it: repairs what a stopped process left. Every
   * operation of the store waits for the promise; a rejection is re-thrown by each.
   */
  start(host: CodecHost): Promise<unknown>;
  /** The plain-text limits a caller splits by, from the limits of stored events. */
  limits(stored: AppendLimits): AppendLimits;
  /**
   * Encodes validated events for an append of one memory (`host` looks up stored targets).
   * Deterministic for one item and one content: the guard's idempotency check compares the
   * stored forms, so a retried append must encode to the bytes already stored.
   */
  encode(memoryId: string, events: readonly MemoryEvent[], host: CodecHost): Promise<EncodedAppend>;
  /** Decodes stored events of one memory, in order (synchronous: a key lookup, no I/O wait). */
  decode<E extends Sequenced>(memoryId: string, events: readonly E[]): E[];
  /** Releases what the codec holds (its key store). */
  close(): void;
}

/**
 * Validates an append for a store without a codec: the events are kept as given. Synchronous, so
 * an append asked for before the store closes is queued before it closes.
 */
export function plainAppend(input: readonly MemoryEvent[], limits: AppendLimits): EncodedAppend {
  return {
    stored: validateAppendInput(input, limits),
    plainOf: storedAsIs,
    settle: nothingToSettle,
  };
}

/** The plain event of a stored one where nothing was sealed: itself. Shared, not made per append. */
export const storedAsIs = (event: Sequenced): Sequenced => event;
const nothingToSettle = (): void => undefined;

/**
 * Validates an append and encodes it with `codec`: the plain events are checked (an export's
 * erased marker is accepted: it is sealed with no words), encoded, and the stored events checked
 * against the store's `limits`. Nothing that the codec began survives a failed check.
 */
export async function encodeAppend(
  codec: ContentCodec,
  memoryId: string,
  input: readonly MemoryEvent[],
  context: {
    readonly limits: AppendLimits;
    readonly host: CodecHost;
    /** What the codec's start returned: awaited first. */
    readonly ready: Promise<unknown> | undefined;
  },
): Promise<EncodedAppend> {
  if (context.ready) await context.ready;
  // Not an array: validateAppendInput names the error.
  if (!Array.isArray(input)) return plainAppend(input, context.limits);
  const plain = input.map((event: unknown) =>
    isValidated(event) ? (event as MemoryEvent) : parseEventOrErased(event),
  );
  const encoded = await codec.encode(memoryId, plain, context.host);
  try {
    // The codec holds the keys: an Erasure it encoded destroys them once it is on record.
    const stored = validateAppendInput(encoded.stored.map(permitErasure), context.limits);
    return { ...encoded, stored };
  } catch (error) {
    encoded.settle(false);
    throw error;
  }
}

/**
 * One append through `codec` (none: the events as given): encodes it, hands the stored events to
 * `write` (the adapter's guard and write), settles what the codec began by whether `write`
 * succeeded, and answers the decision with the caller's plain events for the stored ones.
 * Without a codec, `write` is called in the caller's turn (see {@link plainAppend}).
 */
export async function appendThrough<D extends { readonly stored: readonly Sequenced[] }>(
  codec: ContentCodec | undefined,
  memoryId: string,
  input: readonly MemoryEvent[],
  context: Parameters<typeof encodeAppend>[3],
  write: (encoded: EncodedAppend) => D | Promise<D>,
): Promise<{ readonly decision: D; readonly events: Sequenced[] }> {
  const encoded = codec
    ? await encodeAppend(codec, memoryId, input, context)
    : plainAppend(input, context.limits);
  let decision: D;
  try {
    decision = await write(encoded);
  } catch (error) {
    encoded.settle(false);
    throw error;
  }
  encoded.settle(true);
  return { decision, events: decision.stored.map(encoded.plainOf) };
}

/** Decodes stored events read in order, a batch per codec call. */
export async function* decodeEach(
  codec: ContentCodec | undefined,
  memoryId: string,
  events: AsyncIterable<Sequenced>,
): AsyncGenerator<Sequenced> {
  if (codec === undefined) {
    yield* events;
    return;
  }
  let batch: Sequenced[] = [];
  for await (const event of events) {
    batch.push(event);
    if (batch.length < OPEN_BATCH) continue;
    yield* codec.decode(memoryId, batch);
    batch = [];
  }
  yield* codec.decode(memoryId, batch);
}

/** Decodes projected events' events in batches; their stored forms stay as stored. */
export async function* decodeProjected(
  codec: ContentCodec | undefined,
  memoryId: string,
  events: AsyncIterable<ProjectedEvent>,
): AsyncGenerator<ProjectedEvent> {
  if (codec === undefined) {
    yield* events;
    return;
  }
  let batch: ProjectedEvent[] = [];
  for await (const projected of events) {
    batch.push(projected);
    if (batch.length < OPEN_BATCH) continue;
    yield* decodeProjectedBatch(codec, memoryId, batch);
    batch = [];
  }
  yield* decodeProjectedBatch(codec, memoryId, batch);
}

/** {@link decodeProjected} for events at hand. */
export function decodeProjectedBatch(
  codec: ContentCodec | undefined,
  memoryId: string,
  events: readonly ProjectedEvent[],
): ProjectedEvent[] {
  if (codec === undefined || events.length === 0) return [...events];
  const plain = codec.decode(
    memoryId,
    events.map((e) => e.event),
  );
  return events.map((e, i) => (plain[i] === e.event ? e : new DecodedProjected(plain[i]!, e)));
}

/** A projected event with its event decoded; its stored form read from the original only if asked. */
class DecodedProjected implements ProjectedEvent {
  constructor(
    readonly event: Sequenced,
    private readonly original: ProjectedEvent,
  ) {}

  get stored(): ProjectedEvent['stored'] {
    return this.original.stored;
  }
}
