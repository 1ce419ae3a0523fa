/**
 * Server-side filters of `$all` reads and subscriptions (spec §3.3.5, `EventFilter.cs`):
 * a regex or a list of prefixes, on the stream name or the event type.
 */
import type { streamsPb } from './proto.js';
import type { RecordedEvent } from './types.js';

type FilterOptions = InstanceType<typeof streamsPb.ReadReq.Options.FilterOptions>;

/** A decoded filter. */
export interface AllFilter {
  readonly matches: (record: RecordedEvent) => boolean;
  /** Considered (not matched) records between two checkpoints: multiplier × window. */
  readonly checkpointInterval: number;
}

/** The server's default batch: the window when the client sends `count` instead of `max`. */
const DEFAULT_WINDOW = 32;

/** Decodes `ReadReq.Options.FilterOptions`. */
export function toAllFilter(options: FilterOptions): AllFilter {
  const onStreamName = options.hasStreamIdentifier();
  const expression = onStreamName ? options.getStreamIdentifier() : options.getEventType();
  const regexSource = expression?.getRegex() ?? '';
  const prefixes = expression?.getPrefixList() ?? [];
  // A regex wins over prefixes; `Regex.Match` is unanchored, like `RegExp.test`.
  const regex = regexSource === '' ? undefined : new RegExp(regexSource);
  const test = (value: string): boolean =>
    regex !== undefined
      ? regex.test(value)
      : prefixes.length === 0 || prefixes.some((prefix) => value.startsWith(prefix));
  const window = options.hasMax() ? options.getMax() : DEFAULT_WINDOW;
  return {
    matches: (record) => test(onStreamName ? record.streamName : record.type),
    checkpointInterval: Math.max(1, options.getCheckpointintervalmultiplier()) * window,
  };
}
