/**
 * Test fixtures: events built through the real factories, with a fixed clock so assertions
 * can name exact timestamps.
 */
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  type DeletionInput,
  type DocumentInput,
  type MessageInput,
  type RecallInput,
} from '../../src/core/index.js';

let tick = 0;
/** A clock that moves one second per event, from 2026-01-01T00:00:00Z. */
export const testClock = (): Date => new Date(Date.UTC(2026, 0, 1) + tick++ * 1000);

/** A message with sensible defaults. */
export const message = (
  content = 'The deploy key rotates on Fridays.',
  extra: Partial<MessageInput> = {},
) =>
  createMessage(
    { speaker: 'user', content, sessionId: 's1', source: 'chat', ...extra },
    { now: testClock },
  );

/** A document with sensible defaults. */
export const doc = (
  text = 'Runbook: restart the ingest worker before noon.',
  extra: Partial<DocumentInput> = {},
) => createDocument({ name: 'runbook.md', text, ...extra }, { now: testClock });

/** A recorded recall of `ids`. */
export const recallOf = (ids: readonly string[], extra: Partial<RecallInput> = {}) =>
  createRecall({ query: 'deploy key', recalled: ids, ...extra }, { now: testClock });

/** A deletion of `ids`. */
export const deletionOf = (ids: readonly string[], extra: Partial<DeletionInput> = {}) =>
  createDeletion(
    { targets: ids, reason: 'user asked to forget', requestedBy: 'user', ...extra },
    { now: testClock },
  );
