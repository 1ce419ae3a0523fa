import { GetCheckpointHandler } from './get-checkpoint.handler.js';
import { GetErasureCleanupHandler } from './get-erasure-cleanup.handler.js';
import { GetEventHandler } from './get-event.handler.js';
import { GetItemHistoryHandler } from './get-item-history.handler.js';
import { GetLogKeyHandler } from './get-log-key.handler.js';
import { GetMemoryStateHandler } from './get-memory-state.handler.js';
import { GetRecallStatsHandler } from './get-recall-stats.handler.js';
import { ListMemoriesHandler } from './list-memories.handler.js';
import { ProveConsistencyHandler } from './prove-consistency.handler.js';
import { ProveInclusionHandler } from './prove-inclusion.handler.js';
import { ReadEventsHandler } from './read-events.handler.js';
import { SearchMemoryHandler } from './search-memory.handler.js';

export { GetCheckpointQuery } from './get-checkpoint.query.js';
export { GetErasureCleanupQuery } from './get-erasure-cleanup.query.js';
export { GetEventQuery } from './get-event.query.js';
export { GetItemHistoryQuery } from './get-item-history.query.js';
export { GetLogKeyQuery } from './get-log-key.query.js';
export { GetMemoryStateQuery, type GetMemoryStateOptions } from './get-memory-state.query.js';
export { GetRecallStatsQuery } from './get-recall-stats.query.js';
export { ListMemoriesQuery } from './list-memories.query.js';
export { ProveConsistencyQuery } from './prove-consistency.query.js';
export { ProveInclusionQuery } from './prove-inclusion.query.js';
export { ReadEventsQuery, type ReadEventsOptions } from './read-events.query.js';
export { SearchMemoryQuery, type SearchMemoryOptions } from './search-memory.query.js';
export {
  GetCheckpointHandler,
  GetErasureCleanupHandler,
  GetEventHandler,
  GetItemHistoryHandler,
  GetLogKeyHandler,
  GetMemoryStateHandler,
  GetRecallStatsHandler,
  ListMemoriesHandler,
  ProveConsistencyHandler,
  ProveInclusionHandler,
  ReadEventsHandler,
  SearchMemoryHandler,
};

/** Every query handler of the memory module. */
export const MEMORY_QUERY_HANDLERS = [
  GetMemoryStateHandler,
  SearchMemoryHandler,
  GetRecallStatsHandler,
  GetEventHandler,
  GetItemHistoryHandler,
  ReadEventsHandler,
  ListMemoriesHandler,
  GetErasureCleanupHandler,
  GetCheckpointHandler,
  ProveInclusionHandler,
  ProveConsistencyHandler,
  GetLogKeyHandler,
];
