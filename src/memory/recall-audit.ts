/**
 * The recall audit: "what did agent-7 read from this memory between t1 and t2, and what did it
 * contain then". A scan of the memory's log in seq order, a page at a time: each page stops at
 * `limit` recalls, at about {@link STATE_PAGE_BYTES} of JSON, or after {@link AUDIT_SCAN_EVENTS}
 * events scanned, whichever comes first, and says where the next page starts.
 */
import { z } from 'zod';
import {
  MemoryError,
  parseOrThrow,
  RecordedBy,
  Timestamp,
  type Recall,
  type Sequenced,
} from '../core/index.js';
import {
  estimatedJsonBytes,
  MAX_PAGE,
  STATE_PAGE_BYTES,
  type ReadModelDb,
} from '../read-models/index.js';
import type { EventLog } from '../store/event-log.port.js';
import { lookUpItem } from './item-lookup.js';
import type {
  AuditedRecall,
  EventLookup,
  RecallAuditPage,
  RecallAuditQuery,
} from './memory.types.js';
import { checkSeq } from './request-checks.js';

/** Events one page scans at most, so a page with few matches still answers promptly. */
export const AUDIT_SCAN_EVENTS = 10_000;

/** Recalls a page lists when the query names no limit. */
export const DEFAULT_AUDIT_LIMIT = 100;

/** Where the audit reads: the log and the read models of one memory. */
export interface AuditSource {
  readonly log: EventLog;
  readonly db: ReadModelDb;
  readonly mem: number;
  /** The seq the read models stand at: the scan stops there (null: empty). */
  readonly head: number;
}

/** One page of the recalls `query` selects. */
export async function auditRecalls(
  source: AuditSource,
  query: RecallAuditQuery,
): Promise<RecallAuditPage> {
  const filter = checkedQuery(query);
  const recalls: AuditedRecall[] = [];
  let bytes = 0;
  let seq = filter.fromSeq;
  const end = Math.min(source.head + 1, filter.fromSeq + AUDIT_SCAN_EVENTS);
  if (seq >= end) return { recalls, next: null };
  for await (const event of source.log.read({ fromSeq: seq, limit: end - seq })) {
    seq = event.seq + 1;
    if (event.kind !== 'recall' || !filter.matches(event)) continue;
    const audited = { recall: event, items: itemsOf(source, event) };
    bytes +=
      estimatedJsonBytes(event) +
      audited.items.reduce((n, i) => n + estimatedJsonBytes(i.event), 0);
    if (recalls.length > 0 && bytes > STATE_PAGE_BYTES) {
      seq = event.seq;
      break;
    }
    recalls.push(audited);
    if (recalls.length === filter.limit) break;
  }
  return { recalls, next: seq > source.head ? null : seq };
}

/** The items a recall returned, each as the read models hold it now (erased: the marker). */
function itemsOf(source: AuditSource, recall: Sequenced<Recall>): EventLookup[] {
  return recall.recalled.flatMap((id) => {
    const found = lookUpItem(source.db, source.mem, id);
    return found ? [{ ...found, deleted: found.deletedBy !== null }] : [];
  });
}

const AuditFilter = z.object({
  principal: RecordedBy.unwrap().shape.principal.optional(),
  from: Timestamp.optional(),
  to: Timestamp.optional(),
});

interface Filter {
  readonly fromSeq: number;
  readonly limit: number;
  matches(recall: Sequenced<Recall>): boolean;
}

/** The query checked: `VALIDATION_FAILED` naming the field for anything wrong. */
function checkedQuery(query: RecallAuditQuery): Filter {
  const fromSeq = query.fromSeq ?? 0;
  checkSeq(fromSeq, 'fromSeq', 0);
  const limit = query.limit ?? DEFAULT_AUDIT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid limit: must be an integer from 1 to ${MAX_PAGE}.`,
      {
        issues: [{ path: 'limit', message: `must be an integer from 1 to ${MAX_PAGE}` }],
      },
    );
  }
  const { principal, from, to } = parseOrThrow(
    AuditFilter,
    { principal: query.principal, from: query.from, to: query.to },
    'recall audit',
  );
  const after = from === undefined ? undefined : sortable(from);
  const before = to === undefined ? undefined : sortable(to);
  return {
    fromSeq,
    limit,
    matches: (recall) => {
      if (principal !== undefined && recall.recordedBy?.principal !== principal) return false;
      const at = after === undefined && before === undefined ? '' : sortable(recall.timestamp);
      return (after === undefined || at >= after) && (before === undefined || at < before);
    },
  };
}

/**
 * A canonical UTC time with its fraction padded to microseconds, so times compare as strings
 * (`...00Z` would otherwise sort after `...00.5Z`).
 */
function sortable(timestamp: string): string {
  const [seconds = '', fraction = ''] = timestamp.slice(0, -1).split('.');
  return `${seconds}.${fraction.padEnd(6, '0')}Z`;
}
