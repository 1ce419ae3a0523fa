import { MemoryError, type MemoryState } from '../core/index.js';
import type { StatePage } from './memory.types.js';

/** Which slice of the visible lists to return. */
export interface PageOptions {
  /** Items to skip in each visible list. @defaultValue 0 */
  readonly offset?: number;
  /** Items per visible list. @defaultValue 100 */
  readonly limit?: number;
}

/** The largest page a caller may ask for. */
export const MAX_PAGE = 1000;

/** Cuts a state's visible lists to one page and adds totals. */
export function pageOfState(state: MemoryState, options: PageOptions = {}): StatePage {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 100;
  if (
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > MAX_PAGE
  ) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid page: offset must be 0 or more and limit 1 to ${MAX_PAGE}.`,
      {
        issues: [{ path: 'offset/limit', message: `offset >= 0, 1 <= limit <= ${MAX_PAGE}` }],
      },
    );
  }
  return {
    lastSeq: state.lastSeq,
    visibleMessages: state.visibleMessages.slice(offset, offset + limit),
    visibleDocuments: state.visibleDocuments.slice(offset, offset + limit),
    page: { offset, limit },
    totals: {
      messages: state.messages.length,
      documents: state.documents.length,
      visibleMessages: state.visibleMessages.length,
      visibleDocuments: state.visibleDocuments.length,
      deleted: Object.keys(state.deleted).length,
    },
    deleted: state.deleted,
    recallStats: state.recallStats,
  };
}
