import {
  createRecall,
  parseOrThrow,
  requireObject,
  Recall,
  isMemoryError,
  MemoryError,
  type ContentEvent,
  type Retrieval,
  type Sequenced,
} from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import type { MemorySettings } from './memory.types.js';
import { SEARCHED, type MemoryReadModel } from '../read-models/index.js';
import type { RecallRequest, RecallResult } from './memory.types.js';
import { retrievedOf, type Retrieved, type RetrieverAnswer } from './retriever.js';
import {
  modeOf,
  prepareRetrieval,
  vectorSearchOf,
  vectorStatus,
  type PreparedRetrieval,
} from './semantic-retrieval.js';

/**
 * Invariant 8, the auditable read: the items are computed against the state at seq r and the
 * Recall is appended with expected position r. If anything was appended meanwhile (a deletion,
 * say), the append is refused and the recall is computed again on the newer log; the items are
 * returned only once their Recall is on record.
 *
 * Where the store offers it, the computing happens inside its append turn (`appendComputed`
 * under SQLite's write lock, `appendAtHead` under EventStoreDB's per-memory mutex), so no
 * append of this process — and with SQLite, of any process — lands in between. Otherwise the
 * recall computes optimistically and retries.
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
  const mode = modeOf(request.mode, settings.semantic);
  // Embedding (the query, what the vectors lack) happens here, before any lock is taken.
  const prepared = await prepareRetrieval(settings.semantic, models, request.query, mode);
  const recall: RecallInput = { log, models, settings, request, limit, prepared };
  return (
    (await recallUnderWriteLock(recall)) ??
    (await recallAtHead(recall)) ??
    (await optimisticRecall(recall))
  );
}

/** What every way of recalling works with. */
interface RecallInput {
  readonly log: EventLog;
  readonly models: MemoryReadModel;
  readonly settings: MemorySettings;
  readonly request: RecallRequest;
  readonly limit: number;
  readonly prepared: PreparedRetrieval;
}

/**
 * Invariant 8 without retries, where the store can compute under its write lock (SQLite) and
 * the retriever answers synchronously (BM25): the read models are brought to the head inside
 * the lock, the items retrieved at that head and the Recall appended before anyone else can
 * write — another process on the same file included. `undefined` when this path does not apply.
 */
async function recallUnderWriteLock(recall: RecallInput): Promise<RecallResult | undefined> {
  const { log, models, settings } = recall;
  if (!log.appendComputed || !settings.retriever.synchronous || !models.db.embedded) {
    return undefined;
  }
  // Checks the checkpoints and applies (and indexes) most of what is new before taking the lock.
  await models.catchUpSearch();
  let event: Recall | undefined;
  const stored = await log.appendComputed((lastSeq) => {
    // What another process appended just before: applied here, under the lock.
    if (!models.catchUpSearchWithin(lastSeq ?? -1)) return undefined;
    event = recallEvent(recall, retrieve(recall, lastSeq, false) as Retrieved);
    return [event];
  });
  return stored && event && recallResult(recall, stored, event);
}

/**
 * Invariant 8 in the store's append turn (EventStoreDB): the store reads its head, the read
 * models catch up to exactly that head and the items are retrieved there, while this process's
 * own appends of the memory wait; only another process appending first makes it compute again.
 * The retriever may be asynchronous and may read the memory meanwhile (reads never wait for
 * the turn); one that appends to the memory it retrieves for would wait for the turn it runs in,
 * and fails the recall with `RETRIEVER_TIMEOUT` once `retrieverTimeoutMs` has passed.
 * `undefined` when the store has no such turn or the read models are not checked yet.
 */
async function recallAtHead(recall: RecallInput): Promise<RecallResult | undefined> {
  const { log, settings } = recall;
  if (!log.appendAtHead) return undefined;
  // The first advance checks the checkpoints against the log: not in the turn.
  await settings.projections.advance(log.memoryId, { head: -1, needed: SEARCHED });
  let event: Recall | undefined;
  const stored = await log.appendAtHead(async (lastSeq, read) => {
    const head = lastSeq ?? -1;
    // Read models, search and the vector windows are brought from what the store's turn read;
    // the rest follow later.
    const options = { head, read, needed: SEARCHED };
    if ((await settings.projections.advance(log.memoryId, options)) < head) return undefined;
    event = recallEvent(recall, await retrieve(recall, lastSeq, true));
    return [event];
  }, settings.recallRetries + 1);
  return stored && event && recallResult(recall, stored, event);
}

/** Computes at the head read before, appends expecting it, and computes again if the log moved. */
async function optimisticRecall(recall: RecallInput): Promise<RecallResult> {
  const { log, models, settings } = recall;
  for (let attempt = 0; attempt <= settings.recallRetries; attempt++) {
    // Catching up reads the log directly (no waiting for a poll) before each attempt.
    const head = await models.catchUpSearch();
    const r = head < 0 ? null : head;
    const event = recallEvent(recall, await retrieve(recall, r, true));
    try {
      const stored = await log.append([event], { expectedLastSeq: r });
      return recallResult(recall, stored, event);
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
 * The retriever's ids for the request at `lastSeq`, with how they were retrieved.
 * `ownTransaction`: the searches open their own read transaction (false inside the store's
 * write transaction, which they then read in).
 */
function retrieve(
  { log, models, settings, request, limit, prepared }: RecallInput,
  lastSeq: number | null,
  ownTransaction: boolean,
): Promise<Retrieved> | Retrieved {
  const { db, mem } = models;
  const asOfSeq = lastSeq ?? -1;
  const search = (query: string, max: number) =>
    db.search.search(mem, query, { limit: max, asOfSeq });
  const vectors = vectorSearchOf(settings.semantic, models, prepared, asOfSeq);
  const vectorSearch = vectors && {
    ...vectors,
    search: ownTransaction ? (max: number) => db.read(() => vectors.search(max)) : vectors.search,
  };
  const answer = settings.retriever.retrieve({
    memoryId: log.memoryId,
    query: request.query,
    limit,
    asOfSeq: lastSeq,
    keywordSearch: ownTransaction ? (query, max) => db.read(() => search(query, max)) : search,
    mode: prepared.mode,
    vectorSearch,
    ...(settings.semantic ? { fusion: settings.semantic.fusion } : {}),
  });
  return isPromise(answer)
    ? withinTimeout(answer, settings.retrieverTimeoutMs, log.memoryId).then(retrievedOf)
    : retrievedOf(answer);
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The retriever's answer, or `RETRIEVER_TIMEOUT` after `ms`: a plugged-in retriever may call a
 * service that never answers, and on EventStoreDB it runs in the memory's append turn, which it
 * would hold for as long (a retriever that appends to its own memory waits for that turn). Its
 * late answer, if any, is dropped.
 */
function withinTimeout(
  ids: Promise<RetrieverAnswer>,
  ms: number,
  memoryId: string,
): Promise<RetrieverAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new MemoryError(
            'RETRIEVER_TIMEOUT',
            `Recall in memory ${memoryId}: the retriever did not answer within ${ms} ms (retrieverTimeoutMs); nothing was appended. A retriever must not append to the memory it retrieves for.`,
            { details: { memoryId, timeoutMs: ms } },
          ),
        ),
      ms,
    );
  });
  return Promise.race([ids, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The stored Recall, applied to the read models, the items it names as they are stored, and
 * how the vectors stood at the seq it was computed at.
 */
function recallResult(
  { log, models, settings, prepared }: RecallInput,
  stored: readonly Sequenced[],
  event: Recall,
): RecallResult {
  settings.projections.applyAppended(log.memoryId, stored);
  const { db, mem } = models;
  const recall = stored[0] as Sequenced<Recall>;
  const items = db.read(() => {
    const seqs = event.recalled.flatMap((id) => db.queries.item(mem, id)?.seq ?? []);
    return db.queries.events<Sequenced<ContentEvent>>(mem, seqs);
  });
  const vectors = vectorStatus(settings.semantic, models, prepared, recall.seq - 1);
  return vectors ? { recall, items, vectors } : { recall, items };
}

/** The Recall a request makes of the ids retrieved for it, and of how they were retrieved. */
function recallEvent(
  { request, settings }: RecallInput,
  { ids, retrieval }: { ids: readonly string[]; retrieval: Retrieval },
): Recall {
  return createRecall(
    {
      query: request.query,
      recalled: [...ids],
      retrieval,
      sessionId: request.sessionId,
      source: request.source,
      actor: request.actor,
      recordedBy: request.recordedBy,
    },
    settings.defaults,
  );
}

/** Waits `ms` milliseconds. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
