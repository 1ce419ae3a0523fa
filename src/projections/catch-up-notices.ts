/**
 * What a long catch-up says while it runs: a log written without the projections (the bare
 * store, an older release, a new projection, a layout change) can take minutes to apply, and an
 * operator watching a first request hang must see why and how far it got.
 */
import type { Progress } from './projection-runtime.types.js';

/** Backlogs shorter than this apply in seconds and say nothing. */
export const NOTICE_FROM_EVENTS = 50_000;
/** Least time between two progress notices of one catch-up. */
const EVERY_MS = 5000;

/**
 * The progress of a catch-up of `memoryId`'s projections `names` over seqs `from..head`: it
 * passes everything on to `progress`, and for a backlog of {@link NOTICE_FROM_EVENTS} or more
 * tells `notice` when it starts, every few seconds, and when it is done.
 */
export function noticedProgress(
  notice: ((text: string) => void) | undefined,
  what: { readonly memoryId: string; readonly names: readonly string[] },
  range: { readonly from: number; readonly head: number },
  progress?: Progress,
): Progress | undefined {
  const total = range.head - range.from + 1;
  if (!notice || total < NOTICE_FROM_EVENTS) return progress;
  const subject = `memledger: building ${what.names.join(', ')} of memory ${what.memoryId} from its log`;
  const started = Date.now();
  let said = started;
  notice(`${subject}: ${total.toLocaleString('en')} events to apply.`);
  return (applied, all) => {
    progress?.(applied, all);
    const now = Date.now();
    const done = applied - range.from;
    if (applied >= all) {
      const seconds = ((now - started) / 1000).toFixed(1);
      notice(`${subject}: done, ${done.toLocaleString('en')} events in ${seconds} s.`);
    } else if (now - said >= EVERY_MS) {
      said = now;
      const percent = Math.floor((100 * done) / total);
      notice(
        `${subject}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')} (${percent} %).`,
      );
    }
  };
}
