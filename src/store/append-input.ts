/**
 * What every store checks before it writes: the shape of each event, the count of an append, and
 * its size in bytes against the store's {@link AppendLimits}. A single append is atomic, so one
 * larger than the store accepts is refused whole, never split; callers with many events (the CLI
 * import) split them with {@link splitByBytes} under the limits the log exposes.
 */
import {
  EVENT_TYPE_ALLOWANCE,
  isErased,
  isValidated,
  LIMITS,
  MemoryError,
  parseEvent,
  type MemoryEvent,
} from '../core/index.js';
import type { EventLog } from './event-log.port.js';

/** How many bytes a store accepts, measured as {@link eventSize} measures events. */
export interface AppendLimits {
  /** Which store these are (named in errors), e.g. `EventStoreDB at 127.0.0.1:2113`. */
  readonly store: string;
  /** Largest event, in bytes of its JSON without `seq`. */
  readonly eventBytes: number;
  /**
   * Largest append: the sum of its events' sizes plus {@link EVENT_TYPE_ALLOWANCE} each.
   * `Infinity` when only {@link LIMITS.batch} bounds an append.
   */
  readonly appendBytes: number;
}

/** The limits of a store that says nothing of its own: those of the in-memory store. */
export const DEFAULT_APPEND_LIMITS: AppendLimits = {
  store: 'the in-memory store',
  eventBytes: LIMITS.eventBytes.inMemory,
  appendBytes: LIMITS.appendBytes.inMemory,
};

/** A log that tells what it accepts (the SQLite and EventStoreDB logs do). */
export interface SizedEventLog extends EventLog {
  /** Read at each use: EventStoreDB lowers them when the server says its limit is smaller. */
  readonly limits: AppendLimits;
}

/** The limits of a log: its own when it has them, else {@link DEFAULT_APPEND_LIMITS}. */
export function appendLimitsOf(log: EventLog): AppendLimits {
  const limits = (log as Partial<SizedEventLog>).limits;
  return limits ?? DEFAULT_APPEND_LIMITS;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * An upper bound of the UTF-8 bytes of `JSON.stringify(value)`: no character takes more than six
 * bytes there (`\u0001`). It costs a walk and no string, so small events skip the exact measure.
 */
function jsonBytesBound(value: unknown): number {
  if (typeof value === 'string') return 2 + 6 * value.length;
  if (Array.isArray(value)) {
    let total = 2;
    for (const item of value) total += jsonBytesBound(item) + 1;
    return total;
  }
  if (typeof value === 'object' && value !== null) {
    let total = 2;
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) total += 6 * key.length + 4 + jsonBytesBound(item);
    }
    return total;
  }
  return 24; // a number, a boolean or null
}

/** The event's JSON without `seq`, as stores keep it and as its size is measured. */
function storedJson(event: MemoryEvent): string {
  const { seq: _seq, ...data } = event;
  return JSON.stringify(data);
}

/** An event's size: the UTF-8 bytes of its JSON without `seq`. */
export function eventSize(event: MemoryEvent): number {
  return utf8Bytes(storedJson(event));
}

/** The event's size when it may pass `max`, else a bound under `max` (cheap for small events). */
function sizeUpTo(event: MemoryEvent, max: number): number {
  const bound = jsonBytesBound(event);
  return bound <= max ? bound : eventSize(event);
}

/** `1,048,576 bytes (1 MiB)` */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  const unit = Number.isInteger(mib) ? ` (${mib} MiB)` : '';
  return `${bytes.toLocaleString('en-US')} bytes${unit}`;
}

/**
 * Throws `EVENT_TOO_LARGE` naming the event, its size and the store's limit when the event does
 * not fit the store. Returns its size (exact only when close to the limit).
 */
export function checkEventSize(event: MemoryEvent, limits: AppendLimits): number {
  const size = sizeUpTo(event, limits.eventBytes);
  if (size <= limits.eventBytes) return size;
  throw new MemoryError(
    'EVENT_TOO_LARGE',
    `Event ${event.id} (${event.kind}) is ${formatBytes(size)} as JSON; ${limits.store} accepts events of at most ${formatBytes(limits.eventBytes)}.`,
    {
      details: {
        id: event.id,
        kind: event.kind,
        size,
        max: limits.eventBytes,
        store: limits.store,
      },
      issues: [
        {
          path: '(root)',
          message: `must be at most ${limits.eventBytes} bytes as JSON on ${limits.store}, is ${size}`,
        },
      ],
    },
  );
}

/**
 * Erasures a content codec encoded (src/store/content-codec.ts): an adapter appends an Erasure
 * only through a codec that holds the keys, which destroys the targets' keys once it is on
 * record. Anywhere else it would be a silent no-op — content stored in plain text stays
 * readable — so it is refused.
 */
const permittedErasures = new WeakSet<object>();

/** Marks an event a content codec encoded; only a marked Erasure passes {@link validateAppendInput}. */
export function permitErasure<E extends MemoryEvent>(event: E): E {
  if (event.kind === 'erasure') permittedErasures.add(event);
  return event;
}

function refuseUnsealedErasure(event: MemoryEvent): void {
  if (isErased(event)) {
    // A content codec seals an imported erased item (with no words) before it reaches here.
    throw new MemoryError(
      'ERASURE_UNAVAILABLE',
      `Event ${event.id} is an erased ${event.kind} (an export's marker): this store has no key store, so it cannot hold the erasure. Import into a store with a key store (the application's default).`,
      { details: { id: event.id } },
    );
  }
  if (event.kind !== 'erasure' || permittedErasures.has(event)) return;
  throw new MemoryError(
    'ERASURE_UNAVAILABLE',
    `Erasure ${event.id} cannot be appended: this store has no key store, so its content is stored in plain text and cannot be made unrecoverable. Open it with a key store (the \`keys\` option, on by default in the application) to erase; a Deletion still hides content.`,
    { details: { id: event.id } },
  );
}

/**
 * Re-validates what a caller hands to `append`: a hand-built object must meet the same schema as
 * one from the factories, and the append must fit the store: at most {@link LIMITS.batch}
 * events, each within `limits.eventBytes` (`EVENT_TOO_LARGE`), all within `limits.appendBytes`
 * (`PAYLOAD_TOO_LARGE`). Nothing is written when it throws. Returns canonical frozen events.
 */
export function validateAppendInput(
  input: readonly MemoryEvent[],
  limits: AppendLimits = DEFAULT_APPEND_LIMITS,
): MemoryEvent[] {
  // Callers from plain JavaScript or JSON can pass anything; TypeScript's type is a promise, not a check.
  const events: unknown = input;
  if (!Array.isArray(events)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      'Invalid append: events must be an array of events.',
    );
  }
  if (events.length > LIMITS.batch) {
    throw new MemoryError(
      'PAYLOAD_TOO_LARGE',
      `An append holds ${events.length} events; at most ${LIMITS.batch} are allowed.`,
      { details: { count: events.length, max: LIMITS.batch } },
    );
  }
  const valid = input.map((event) => (isValidated(event) ? event : parseEvent(event)));
  valid.forEach(refuseUnsealedErasure);
  let bound = 0;
  for (const event of valid) bound += checkEventSize(event, limits) + EVENT_TYPE_ALLOWANCE;
  if (bound > limits.appendBytes) {
    const size = appendSize(valid);
    if (size > limits.appendBytes) {
      throw new MemoryError(
        'PAYLOAD_TOO_LARGE',
        `An append of ${valid.length} events is ${formatBytes(size)}; ${limits.store} accepts appends of at most ${formatBytes(limits.appendBytes)} (an append is atomic: split it into several).`,
        {
          details: { count: valid.length, size, max: limits.appendBytes, store: limits.store },
        },
      );
    }
  }
  return valid;
}

/** The size of an append as the limits count it: each event's size plus the type allowance. */
export function appendSize(events: readonly MemoryEvent[]): number {
  let total = 0;
  for (const event of events) total += eventSize(event) + EVENT_TYPE_ALLOWANCE;
  return total;
}

/**
 * Splits events, in order, into consecutive batches of at most `maxCount` events and at most
 * `limits.appendBytes` bytes (as {@link appendSize} counts them). Every event must fit on its
 * own (see {@link checkEventSize}); one that does not gets a batch of its own, which the store
 * then refuses with `EVENT_TOO_LARGE`.
 */
export function splitByBytes<T>(
  items: readonly T[],
  eventOf: (item: T) => MemoryEvent,
  limits: AppendLimits,
  maxCount: number = LIMITS.batch,
): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  const measure = Number.isFinite(limits.appendBytes);
  for (const item of items) {
    // Exact sizes: a bound would make batches several times smaller than the store allows.
    const cost = measure ? eventSize(eventOf(item)) + EVENT_TYPE_ALLOWANCE : 0;
    if (batch.length > 0 && (batch.length >= maxCount || bytes + cost > limits.appendBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
