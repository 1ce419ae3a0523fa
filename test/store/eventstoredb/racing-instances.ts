/**
 * The race both EventStoreDB specs run: three store instances race deletions against recalls on
 * one memory. Returns the items and the log as it ended, after checking seq is gapless and the
 * log folds (replay throws LOG_INVARIANT_VIOLATED on a recall of deleted content).
 */
import {
  replay,
  type MemoryEvent,
  type MemoryState,
  type Sequenced,
} from '../../../src/core/index.js';
import type { EventLog } from '../../../src/store/event-log.port.js';
import { readAll } from '../../support/collect.js';
import { deletionOf, doc, message, recallOf } from '../../support/events.js';

export async function raceDeletionsAgainstRecalls(
  logs: readonly [EventLog, EventLog, EventLog],
): Promise<{ items: MemoryEvent[]; events: Sequenced[]; state: MemoryState }> {
  const items = Array.from({ length: 15 }, (_, i) => (i % 3 ? message(`m${i}`) : doc(`d${i}`)));
  await logs[0].append(items);
  await Promise.all(
    items.flatMap((item, i) => [
      logs[i % 3]!.append([recallOf([item.id])]).catch(() => undefined),
      logs[(i + 1) % 3]!.append([deletionOf([item.id])]).catch(() => undefined),
      logs[(i + 2) % 3]!.append([recallOf(items.map((x) => x.id))]).catch(() => undefined),
    ]),
  );
  const events = await readAll(logs[2]);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  const state = replay(events);
  expect(Object.keys(state.deleted)).toHaveLength(items.length);
  return { items, events, state };
}
