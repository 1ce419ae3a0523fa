/**
 * Link events (`$>`, spec §5.6): a record whose data is `"<revision>@<stream>"`. A read or
 * subscription with `resolve_links` answers a link with the target record as `event` and the
 * link as `link`, and the link's position as the `ReadEvent`'s (`ResolvedEvent.cs:23`); a
 * target that does not exist or is not visible (deleted, truncated) leaves only `link`
 * (`ResolvedEvent.ForFailedResolvedLink`).
 */
import { toEventResponse } from './codec.js';
import type { streamsPb } from './proto.js';
import type { EventStore } from './store.js';
import type { RecordedEvent } from './types.js';

/** The event type of a link. */
export const LINK_EVENT_TYPE = '$>';

type ReadResp = InstanceType<typeof streamsPb.ReadResp>;

/** Turns a record into the `ReadResp` a read sends for it. */
export type Responder = (record: RecordedEvent) => ReadResp;

/** The target a link names, or undefined when it names nothing visible. */
export function linkTarget(store: EventStore, link: RecordedEvent): RecordedEvent | undefined {
  const text = Buffer.from(link.data).toString('utf8');
  const at = text.indexOf('@');
  if (at <= 0 || !/^\d+$/.test(text.slice(0, at))) return undefined;
  const revision = BigInt(text.slice(0, at));
  const read = store.readStream(text.slice(at + 1));
  if (read.kind !== 'ok') return undefined;
  return read.events.find((event) => event.revision === revision);
}

/** The responder of a read: links resolved when `resolveLinks`, events in the asked UUID form. */
export function responder(
  store: EventStore,
  structured: boolean,
  resolveLinks: boolean,
): Responder {
  return (record) => {
    if (!resolveLinks || record.type !== LINK_EVENT_TYPE)
      return toEventResponse(record, structured);
    return toEventResponse(record, structured, { target: linkTarget(store, record) });
  };
}
