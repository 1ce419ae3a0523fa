/**
 * Catch-up subscriptions over `Streams.Read`: `confirmation`, catch-up events, `caught_up`,
 * then live events as they commit (spec §3.3.3-§3.3.5). Catch-up and listener registration
 * happen in the same tick, so no event can fall between them: no gaps, no duplicates.
 * The call never ends by itself; it ends when the client cancels or the server stops.
 */
import { randomUUID } from 'node:crypto';
import { serverStoppingError, streamDeletedError } from './errors.js';
import type { Responder } from './links.js';
import type { AllFilter } from './event-filter.js';
import { streamsPb } from './proto.js';
import { fromRevision } from './stream-metadata.js';
import type { ReadCall } from './read.js';
import type { ServerContext } from './server-context.js';
import { STREAM_DELETED_EVENT_TYPE } from './store.js';
import type { RecordedEvent } from './types.js';

/** Where a stream read or subscription starts. */
export type StreamStart =
  | { readonly kind: 'start' }
  | { readonly kind: 'end' }
  | { readonly kind: 'revision'; readonly revision: bigint };

/** Where a `$all` read or subscription starts; `position` is the commit position. */
export type AllStart =
  | { readonly kind: 'start' }
  | { readonly kind: 'end' }
  | { readonly kind: 'position'; readonly position: bigint };

/**
 * Stream subscription. `revision r` is exclusive (events after r); `end` skips what exists.
 * A missing stream is not an error: it confirms, catches up with nothing and waits.
 */
export function subscribeToStream(
  context: ServerContext,
  call: ReadCall,
  streamName: string,
  start: StreamStart,
  respond: Responder,
): void {
  const { store } = context;
  confirm(call);
  if (store.isTombstoned(streamName)) {
    call.emit('error', streamDeletedError(streamName));
    return;
  }
  const result = store.readStream(streamName);
  if (result.kind === 'ok' && start.kind !== 'end') {
    const { events } = result;
    const from = start.kind === 'revision' ? fromRevision(events, start.revision + 1n) : 0;
    for (let i = from; i < events.length; i++) call.write(respond(events[i]!));
  }
  call.write(caughtUp());
  keepLive(context, call, (record, stop) => {
    if (record.streamName !== streamName) return;
    call.write(respond(record));
    // A tombstone is delivered, then the subscription fails (`StreamSubscription.cs:297-303`).
    if (record.type === STREAM_DELETED_EVENT_TYPE)
      stop(() => call.emit('error', streamDeletedError(streamName)));
  });
}

/**
 * `$all` subscription. `position P` is exclusive. With a filter, `checkpoint` messages report
 * progress every `checkpointInterval` *considered* records, plus one when catch-up ends
 * (`AllSubscriptionFiltered.cs:315-344`).
 */
export function subscribeToAll(
  context: ServerContext,
  call: ReadCall,
  start: AllStart,
  filter: AllFilter | undefined,
  respond: Responder,
): void {
  confirm(call);
  const records = context.store.allRecords();
  let considered = 0;
  const consider = (record: RecordedEvent): void => {
    if (filter === undefined) {
      call.write(respond(record));
      return;
    }
    if (filter.matches(record)) call.write(respond(record));
    considered += 1;
    if (considered >= filter.checkpointInterval) {
      considered %= filter.checkpointInterval;
      call.write(checkpoint(record.position));
    }
  };
  if (start.kind !== 'end') {
    const after = start.kind === 'position' ? start.position : -1n;
    for (const record of records) if (record.position > after) consider(record);
  }
  const last = records.at(-1);
  if (filter !== undefined && last !== undefined) call.write(checkpoint(last.position));
  call.write(caughtUp());
  keepLive(context, call, (record) => consider(record));
}

/**
 * Forwards live records to `onRecord` until the client cancels, the server stops, or
 * `onRecord` calls `stop` with the way to end the call.
 */
function keepLive(
  context: ServerContext,
  call: ReadCall,
  onRecord: (record: RecordedEvent, stop: (end: () => void) => void) => void,
): void {
  let active = true;
  const stop = (end: () => void): void => {
    if (!active) return;
    active = false;
    unsubscribe();
    untrack();
    end();
  };
  const unsubscribe = context.store.subscribe((record) => {
    if (active) onRecord(record, stop);
  });
  const untrack = context.track(() => stop(() => call.emit('error', serverStoppingError())));
  call.on('cancelled', () => stop(() => undefined));
}

function confirm(call: ReadCall): void {
  const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(
    randomUUID(),
  );
  call.write(new streamsPb.ReadResp().setConfirmation(confirmation));
}

function caughtUp(): InstanceType<typeof streamsPb.ReadResp> {
  return new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp());
}

function checkpoint(position: bigint): InstanceType<typeof streamsPb.ReadResp> {
  const value = position.toString();
  return new streamsPb.ReadResp().setCheckpoint(
    new streamsPb.ReadResp.Checkpoint().setCommitPosition(value).setPreparePosition(value),
  );
}
