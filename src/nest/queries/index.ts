import { GetErasureCleanupHandler } from './get-erasure-cleanup.handler.js';
import { GetEventHandler } from './get-event.handler.js';
import { GetItemHistoryHandler } from './get-item-history.handler.js';
import { GetMemoryStateHandler } from './get-memory-state.handler.js';
import { GetRecallStatsHandler } from './get-recall-stats.handler.js';
import { ListMemoriesHandler } from './list-memories.handler.js';
import { ReadEventsHandler } from './read-events.handler.js';
import { SearchMemoryHandler } from './search-memory.handler.js';

export { GetErasureCleanupQuery } from './get-erasure-cleanup.query.js';
export { GetEventQuery } from './get-event.query.js';
export { GetItemHistoryQuery } from './get-item-history.query.js';
export { GetMemoryStateQuery, type GetMemoryStateOptions } from './get-memory-state.query.js';
export { GetRecallStatsQuery } from './get-recall-stats.query.js';
export { ListMemoriesQuery } from './list-memories.query.js';
export { ReadEventsQuery, type ReadEventsOptions } from './read-events.query.js';
export { SearchMemoryQuery, type SearchMemoryOptions } from './search-memory.query.js';
export {
  GetErasureCleanupHandler,
  GetEventHandler,
  GetItemHistoryHandler,
  GetMemoryStateHandler,
  GetRecallStatsHandler,
  ListMemoriesHandler,
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
];
