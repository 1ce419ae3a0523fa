import {
  createRecall,
  parseOrThrow,
  requireObject,
  Recall,
  isMemoryError,
  MemoryError,
  type ContentEvent,
  type Sequenced,
} from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import type { MemorySettings } from './memory.types.js';
import type { MemoryReadModel } from '../read-models/index.js';
import type { RecallRequest, RecallResult } from './memory.types.js';

/**
 * Invariant 8, the auditable read: the items are computed against the state at seq r and the
 * Recall is appended with expected position r. If anything was appended meanwhile (a deletion,
 * say), the append is refused and the recall is computed again on the newer log; the items are
 * returned only once their Recall is on record.
 */
export async function auditableRecall(
  log: EventLog,
  models: MemoryReadModel,
  settings: MemorySettings,
  request: RecallRequest,
): Promise<RecallResult> {
  requireObject(request, 'recall');
  parseOrThrow(Recall.pick({ query: true }), { query: request.query }, 'recall');
  const limit = request.limit ?? settings.recallLimit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid recall: limit must be an integer from 1 to 100, got ${limit}.`,
      {
        issues: [{ path: 'limit', message: 'must be an integer from 1 to 100' }],
      },
    );
  }
  const locked = await recallUnderWriteLock(log, models, settings, request, limit);
  if (locked) return locked;
  for (let attempt = 0; attempt <= settings.recallRetries; attempt++) {
    // Catching up reads the log directly (no waiting for a poll) before each attempt.
    const head = await models.catchUp();
    models.catchUpSearch();
    const r = head < 0 ? null : head;
    const { db, mem } = models;
    const ids = await settings.retriever.retrieve({
      memoryId: log.memoryId,
      query: request.query,
      limit,
      asOfSeq: r,
      keywordSearch: (query, max) =>
        db.read(() => db.search.search(mem, query, { limit: max, asOfSeq: head })),
    });
    const event = recallEvent(request, ids, settings);
    try {
      const [stored] = await log.append([event], { expectedLastSeq: r });
      models.applyOwn([stored!]);
      const items = db.read(() => {
        const seqs = event.recalled.flatMap((id) => db.queries.item(mem, id)?.seq ?? []);
        return db.queries.events<Sequenced<ContentEvent>>(mem, seqs);
      });
      return { recall: stored as Sequenced<Recall>, items };
    } catch (error) {
      if (!isMemoryError(error, 'EXPECTED_SEQ_MISMATCH')) throw error;
      // Another writer moved the log first. The first retry is immediate; later ones wait a
      // random, growing pause, so two processes writing one file at full speed stop colliding.
      if (attempt > 0) await pause(Math.random() * Math.min(2 ** attempt, 64));
    }
  }
  throw new MemoryError(
    'APPEND_CONFLICT',
    `Recall in memory ${log.memoryId} gave up after ${settings.recallRetries + 1} attempts: the log kept moving.`,
    {
      details: { memoryId: log.memoryId, attempts: settings.recallRetries + 1 },
    },
  );
}

/**
 * Invariant 8 without retries, where the store can compute under its write lock (SQLite) and
 * the retriever answers synchronously (BM25): the read models are brought to the head inside
 * the lock, the items retrieved at that head and the Recall appended before anyone else can
 * write — another process on the same file included. `undefined` when this path does not apply
 * (the caller then computes optimistically and retries).
 */
async function recallUnderWriteLock(
  log: EventLog,
  models: MemoryReadModel,
  settings: MemorySettings,
  request: RecallRequest,
  limit: number,
): Promise<RecallResult | undefined> {
  if (!log.appendComputed || !settings.retriever.synchronous || !models.db.embedded) {
    return undefined;
  }
  // Verifies the checkpoint and applies (and indexes) most of what is new before taking the lock.
  await models.catchUp();
  models.catchUpSearch();
  const { db } = models;
  let event: Recall | undefined;
  const stored = await log.appendComputed((lastSeq) => {
    const head = lastSeq ?? -1;
    if (!models.catchUpWithin(head)) return undefined;
    models.catchUpSearch();
    const ids = settings.retriever.retrieve({
      memoryId: log.memoryId,
      query: request.query,
      limit,
      asOfSeq: lastSeq,
      keywordSearch: (query, max) =>
        db.search.search(models.mem, query, { limit: max, asOfSeq: head }),
    }) as readonly string[];
    event = recallEvent(request, ids, settings);
    return [event];
  });
  if (!stored || !event) return undefined;
  models.applyOwn(stored);
  const recalled = event.recalled;
  const items = db.read(() => {
    const seqs = recalled.flatMap((id) => db.queries.item(models.mem, id)?.seq ?? []);
    return db.queries.events<Sequenced<ContentEvent>>(models.mem, seqs);
  });
  return { recall: stored[0] as Sequenced<Recall>, items };
}

/** The Recall a request makes of the ids retrieved for it. */
function recallEvent(
  request: RecallRequest,
  ids: readonly string[],
  settings: MemorySettings,
): Recall {
  return createRecall(
    {
      query: request.query,
      recalled: [...ids],
      sessionId: request.sessionId,
      source: request.source,
      actor: request.actor,
    },
    settings.defaults,
  );
}

/** Waits `ms` milliseconds. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
