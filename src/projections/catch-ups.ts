/**
 * Catch-ups of the projection runtime (projection-runtime.ts's `advance`): one per memory at a
 * time, shared by every call whose projections it covers, each reading what the log holds past
 * the lowest checkpoint of its projections and applying it (bulk-catch-up.ts).
 */
import type { EventLog } from '../store/event-log.port.js';
import { GenAiAttr, MemledgerAttr, SpanName } from '../telemetry/semconv.js';
import { traced } from '../telemetry/tracing.js';
import { applyRange, type RangeParts } from './bulk-catch-up.js';
import { noticedProgress } from './catch-up-notices.js';
import {
  checkAgainstLog,
  lowestCheckpoint,
  shortOfHead,
  type Registered,
} from './projection-steps.js';
import type { Progress } from './projection-runtime.types.js';

interface Running {
  readonly run: Promise<number>;
  /** The projections it advances (undefined: all). */
  readonly needed: readonly string[] | undefined;
}

/** The catch-up running per memory. */
export class CatchUpRuns {
  private readonly running = new Map<string, Running>();

  /** Whether any memory is catching up. */
  any(): boolean {
    return this.running.size > 0;
  }

  /** Resolves once no catch-up of `memoryId` runs (whether they succeed or not). */
  async settled(memoryId: string): Promise<void> {
    while (this.running.has(memoryId)) await this.running.get(memoryId)!.run.catch(() => undefined);
  }

  /**
   * Starts the memory's catch-up with `start` when none runs. A running one that advances every
   * projection of `needed` is shared: its outcome is awaited, and `reached` (the lowest checkpoint
   * among them) returned when at `head`; one that does not is waited out first.
   */
  async run(
    memoryId: string,
    wants: { readonly needed?: readonly string[] | undefined; readonly head?: number | undefined },
    start: () => Promise<number>,
    reached: () => number,
  ): Promise<number> {
    const { needed, head } = wants;
    for (;;) {
      const shared = this.running.get(memoryId);
      if (shared === undefined) {
        const run = start().finally(() => this.running.delete(memoryId));
        this.running.set(memoryId, { run, needed });
        return run;
      }
      const covers =
        !shared.needed || (needed?.every((name) => shared.needed!.includes(name)) ?? false);
      if (!covers) {
        await shared.run.catch(() => undefined);
        continue;
      }
      await shared.run;
      const at = reached();
      if (head === undefined || at >= head) return at;
    }
  }
}

/** What a catch-up works with: the runtime's file, log source, listeners, builds, bookkeeping. */
export interface CatchUpParts extends RangeParts {
  /** Memories whose checkpoints were checked against the log in this process. */
  readonly checked: Set<string>;
  /** Where a long catch-up says how it goes (catch-up-notices.ts). */
  readonly onNotice: ((notice: string) => void) | undefined;
}

/**
 * Brings `to` (of `projections`, the serving layouts when asked) to the head of `log`: checks
 * every projection's checkpoint against the log first (once per memory and process), then
 * applies what follows the lowest of `to`'s; the checkpoint reached.
 */
export async function catchUp(
  parts: CatchUpParts,
  log: EventLog,
  projections: () => { readonly all: readonly Registered[]; readonly to: readonly Registered[] },
  progress: Progress | undefined,
): Promise<number> {
  const { memoryId } = log;
  const head = (await log.lastSeq()) ?? -1;
  if (!parts.checked.has(memoryId)) {
    await checkAgainstLog(parts.db, projections().all, log, head);
    parts.checked.add(memoryId);
  }
  const { to } = projections();
  const from = lowestCheckpoint(to, memoryId) + 1;
  if (from > head) return head;
  // A span only when there is work: the caught-up path costs nothing extra.
  return traced(
    SpanName.catchUp,
    { [GenAiAttr.storeId]: memoryId, [MemledgerAttr.fromSeq]: from },
    async (span) => {
      const names = to.map((registered) => registered.projection.name);
      const told = noticedProgress(parts.onNotice, { memoryId, names }, { from, head }, progress);
      await applyRange(parts, log, to, { from, head, told });
      const reached = lowestCheckpoint(to, memoryId);
      if (reached < head) throw shortOfHead(memoryId, reached, head);
      span.setAttribute(MemledgerAttr.checkpoint, reached);
      return reached;
    },
  );
}
