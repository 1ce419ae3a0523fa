/**
 * Listing the memories of an EventStoreDB store: the streams named `${streamPrefix}<id>`.
 *
 * db-client 6 has no server-side filter on `readAll`, and the `$streams` / `$ce-` system
 * projections may be switched off, so this runs a `$all` catch-up subscription with a server-side
 * stream-name prefix filter and stops once it has caught up with the `$all` head read first.
 * Limitation: the cost grows with the number of memory *events* (each one is sent once), so it
 * suits an admin listing, not a hot path. Reading `$all` needs the `$ops`/`$admins` role on a
 * secure cluster. A stream deleted outside memledger may still be listed.
 */
import {
  BACKWARDS,
  END,
  START,
  streamNameFilter,
  type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import { MemoryId } from '../../core/index.js';
import { translateEsdbError } from './eventstoredb.errors.js';
import type { EsdbContext } from './eventstoredb.reads.js';

/** Ids of the memories whose stream holds at least one event, sorted. */
export async function listMemoryIds(context: EsdbContext): Promise<string[]> {
  context.ensureOpen();
  try {
    const head = await allHead(context);
    if (head === undefined) return [];
    const streams = await prefixedStreams(context, head);
    return [...streams]
      .map((name) => name.slice(context.streamPrefix.length))
      .filter((id) => MemoryId.safeParse(id).success)
      .sort();
  } catch (error) {
    throw translateEsdbError(error, 'list memories', context);
  }
}

/** Commit position of the last record of `$all`, `undefined` when it is empty. */
async function allHead(context: EsdbContext): Promise<bigint | undefined> {
  const read = context.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
  let head: bigint | undefined;
  // Drained rather than left early, which would strand the gRPC call (and hang dispose()).
  for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
    if (resolved.event !== undefined) head = resolved.event.position.commit;
  }
  return head;
}

/** Names of the prefixed streams with an event at or before `head`. */
function prefixedStreams(context: EsdbContext, head: bigint): Promise<Set<string>> {
  const names = new Set<string>();
  let reachedHead = false;
  return new Promise<Set<string>>((resolve, reject) => {
    const subscription = context.client.subscribeToAll({
      fromPosition: START,
      filter: streamNameFilter({
        prefixes: [context.streamPrefix],
        checkpointReached: (_subscription, position) => {
          reachedHead ||= position.commit >= head;
          settleIfDone();
        },
      }),
    });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      context.closers.delete(onClose);
      void subscription.unsubscribe().catch(() => undefined);
      if (error === undefined) resolve(names);
      else reject(error);
    };
    // Events still buffered in the readable were sent before the marker that ended catch-up.
    const settleIfDone = () => {
      if (reachedHead && subscription.readableLength === 0) settle();
    };
    const onClose = () => settle(new Error('The store was closed while listing memories.'));
    context.closers.add(onClose);
    subscription.on('data', (resolved: AllStreamResolvedEvent) => {
      if (resolved.event !== undefined) {
        names.add(resolved.event.streamId);
        reachedHead ||= resolved.event.position.commit >= head;
      }
      settleIfDone();
    });
    subscription.on('caughtUp', () => {
      reachedHead = true;
      settleIfDone();
    });
    subscription.on('error', (error: Error) => settle(error));
  });
}
