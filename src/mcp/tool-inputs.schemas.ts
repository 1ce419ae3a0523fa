/**
 * The arguments of each MCP tool, one schema per shape, picked field by field from the core zod
 * schemas (one source of truth): the SDK validates every call with them and lists them to the
 * host as JSON Schema, so a bad argument is refused before anything is written.
 */
import { z } from 'zod';
import { Deletion, Document, Message, MemoryId, Recall, RecallMode } from '../core/index.js';
import { MAX_PAGE } from '../memory/index.js';

/** The most items one auditable recall may return (the facade's own bound). */
export const MAX_RECALL_LIMIT = 100;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number()
    .int({ message: 'must be an integer' })
    .min(min, { message: `must be ${min} or more` })
    .max(max, { message: `must be at most ${max}` });

/** The optional `memoryId` every tool takes: it overrides the server's memory for one call. */
const memoryField = {
  memoryId: MemoryId.optional().describe(
    "The memory to use for this call (1 to 128 of A-Z a-z 0-9 . _ -); default: the server's memory.",
  ),
};

/** Who and which conversation a write belongs to. */
const contextFields = {
  sessionId: Message.shape.sessionId.describe(
    'Groups the events of one conversation or run (optional).',
  ),
  actor: Message.shape.actor.describe('Which agent or component writes this (optional).'),
};

/** Arguments of `remember`: a message to record. */
export const RememberInput = z.strictObject({
  speaker: Message.shape.speaker.describe('Who said it, e.g. "user" or "assistant".'),
  content: Message.shape.content.describe('What was said.'),
  ...contextFields,
  ...memoryField,
});
/** Arguments of `remember`. */
export type RememberInput = z.output<typeof RememberInput>;

/** Arguments of `add_document`: a document's extracted plain text. */
export const AddDocumentInput = z.strictObject({
  name: Document.shape.name.describe('The document name, e.g. "runbook.md".'),
  text: Document.shape.text.describe("The document's extracted plain text."),
  mediaType: Document.shape.mediaType.describe(
    'The media type of the original, e.g. "text/markdown"; default "text/plain".',
  ),
  ...contextFields,
  ...memoryField,
});
/** Arguments of `add_document`. */
export type AddDocumentInput = z.output<typeof AddDocumentInput>;

/** How a recall or search retrieves, described for the host. */
const modeField = RecallMode.optional().describe(
  'lexical (words, BM25), semantic (meaning, vectors) or hybrid (both fused); default hybrid ' +
    'when the server has an embedder, else lexical.',
);

/** Arguments of `recall`, the auditable read. */
export const RecallToolInput = z.strictObject({
  query: Recall.shape.query.describe('What to look for in memory.'),
  limit: integer(1, MAX_RECALL_LIMIT)
    .optional()
    .describe(`At most this many items, 1 to ${MAX_RECALL_LIMIT} (default 5).`),
  mode: modeField,
  ...contextFields,
  ...memoryField,
});
/** Arguments of `recall`. */
export type RecallToolInput = z.output<typeof RecallToolInput>;

/** Arguments of `forget`: a Deletion of content, with its reason, and optionally an Erasure. */
export const ForgetInput = z.strictObject({
  targets: Deletion.shape.targets.describe(
    'Ids of the messages or documents to delete (at least one, no repeats).',
  ),
  reason: Deletion.shape.reason.describe('Why they are deleted (kept on record).'),
  requestedBy: Deletion.shape.requestedBy.describe('Who asked for the deletion (optional).'),
  erase: z
    .boolean()
    .optional()
    .describe(
      'Also erase them: their words become unrecoverable for good (an Erasure appended with the ' +
        'Deletion, atomically). Default false: the deletion only hides them.',
    ),
  ...memoryField,
});
/** Arguments of `forget`. */
export type ForgetInput = z.output<typeof ForgetInput>;

/** Arguments of `search`, the inspection search. */
export const SearchInput = z.strictObject({
  query: Recall.shape.query.describe('The text to search for.'),
  asOfSeq: integer(-1)
    .optional()
    .describe(
      'Search the content visible right after this seq (-1: before the first event); default now.',
    ),
  limit: integer(1, MAX_PAGE)
    .optional()
    .describe(`At most this many hits, 1 to ${MAX_PAGE} (default 10).`),
  mode: modeField,
  ...memoryField,
});
/** Arguments of `search`. */
export type SearchInput = z.output<typeof SearchInput>;

/** Arguments of `state_at`: a page of the state now or as of a seq. */
export const StateAtInput = z.strictObject({
  upToSeq: integer(-1)
    .optional()
    .describe('The seq to stand at (-1: before the first event); default now.'),
  offset: integer(0).optional().describe('Items to skip in each list (default 0).'),
  limit: integer(1, MAX_PAGE)
    .optional()
    .describe(`Items per list, 1 to ${MAX_PAGE} (default 100).`),
  ...memoryField,
});
/** Arguments of `state_at`. */
export type StateAtInput = z.output<typeof StateAtInput>;

/** Arguments of `history`: one item by id. */
export const HistoryInput = z.strictObject({
  id: Recall.shape.id.describe('The event id (a UUID).'),
  ...memoryField,
});
/** Arguments of `history`. */
export type HistoryInput = z.output<typeof HistoryInput>;

/** Arguments of `receipt`: the event to prove, by seq. */
export const ReceiptInput = z.strictObject({
  seq: integer(0).describe(
    'The seq of the event to prove: e.g. the seq of the Recall that `recall` returned.',
  ),
  ...memoryField,
});
/** Arguments of `receipt`. */
export type ReceiptInput = z.output<typeof ReceiptInput>;
