/**
 * Signed checkpoints on EventStoreDB: a companion stream per memory and origin,
 * `checkpoints:<stream prefix><origin>`, one `Checkpoint` event per kept checkpoint, appended
 * with the expected revision of the latest one read (so two instances never both extend the
 * same one) and with a size larger than it (so sizes grow with the revision, and the one at a
 * size is found by bisecting revisions). The name never starts with the memories' prefix and
 * holds `:` and `/`, which no memory id does, so listing memories never shows it.
 */
import {
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  jsonEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { MemoryError } from '../../core/index.js';
import type {
  ArchivedCheckpoint,
  CheckpointArchive,
  CheckpointSeries,
} from '../checkpoint-archive.port.js';
import {
  isStreamNotFound,
  isWrongExpectedVersion,
  translateEsdbError,
} from './eventstoredb.errors.js';
import type { EsdbContext } from './eventstoredb.reads.js';

/** The event type of a kept checkpoint. */
export const CHECKPOINT_EVENT_TYPE = 'Checkpoint';

/** The companion stream of one series. */
export function checkpointStreamName(context: EsdbContext, series: CheckpointSeries): string {
  return `checkpoints:${context.streamPrefix}${series.origin}`;
}

/** The checkpoint archive of an EventStoreDB store. */
export function eventStoreDbCheckpointArchive(context: EsdbContext): CheckpointArchive {
  const read = async (
    series: CheckpointSeries,
    from: bigint | typeof END,
    direction: typeof FORWARDS | typeof BACKWARDS,
  ): Promise<ArchivedCheckpoint | undefined> => {
    context.ensureOpen();
    const name = checkpointStreamName(context, series);
    try {
      const events = context.client.readStream(name, {
        fromRevision: from,
        direction,
        maxCount: 1,
      });
      let found: ArchivedCheckpoint | undefined;
      // Drained, never left early: that would strand the gRPC call.
      for await (const resolved of events as AsyncIterable<ResolvedEvent>) {
        found = decode(name, resolved);
      }
      return found;
    } catch (error) {
      if (isStreamNotFound(error)) return undefined;
      throw translateEsdbError(error, `read the checkpoints of ${series.origin}`, context);
    }
  };
  const latest = (series: CheckpointSeries) => read(series, END, BACKWARDS);
  return {
    latest,
    async at(series, size) {
      let high = (await latest(series))?.position ?? -1;
      let low = 0;
      while (low <= high) {
        const middle = Math.floor((low + high) / 2);
        const found = await read(series, BigInt(middle), FORWARDS);
        if (found === undefined || found.size === size) return found;
        if (found.size < size) low = middle + 1;
        else high = middle - 1;
      }
      return undefined;
    },
    async add(series, checkpoint, after) {
      context.ensureOpen();
      if (after !== undefined && checkpoint.size <= after.size) return false;
      const event = jsonEvent({
        type: CHECKPOINT_EVENT_TYPE,
        data: {
          size: checkpoint.size,
          root: Buffer.from(checkpoint.root).toString('base64'),
          note: checkpoint.note,
        },
      });
      try {
        await context.client.appendToStream(checkpointStreamName(context, series), event, {
          expectedRevision: after === undefined ? NO_STREAM : BigInt(after.position),
          deadline: context.deadlineMs,
        });
        return true;
      } catch (error) {
        if (isWrongExpectedVersion(error)) return false;
        throw translateEsdbError(error, `keep a checkpoint of ${series.origin}`, context);
      }
    },
  };
}

function decode(stream: string, resolved: ResolvedEvent): ArchivedCheckpoint {
  const recorded = resolved.event;
  const data = recorded?.data as { size?: unknown; root?: unknown; note?: unknown } | undefined;
  if (
    recorded?.type !== CHECKPOINT_EVENT_TYPE ||
    typeof data?.size !== 'number' ||
    typeof data.root !== 'string' ||
    typeof data.note !== 'string'
  ) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `A record of the EventStoreDB stream ${stream} is not a kept checkpoint.`,
      { details: { stream } },
    );
  }
  return {
    size: data.size,
    root: Buffer.from(data.root, 'base64'),
    note: data.note,
    position: Number(recorded.revision),
  };
}
