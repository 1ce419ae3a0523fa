/**
 * The `structuredContent` of each MCP tool, as its `outputSchema`. These describe the JSON wire
 * shape of stored events (already validated when they were written), not the rules a new event
 * must pass: the core schemas carry transforms and a `Date` input that JSON Schema cannot
 * express, and a host validates results against the schema the server lists.
 */
import { z } from 'zod';
import { EVENT_KINDS } from '../core/index.js';

const nullableText = z.string().nullable();

/** Who appended an event, as the server authenticated them (null: nobody authenticated). */
const recordedBy = z.object({ principal: z.string(), via: z.string() }).nullable();

/** Fields every stored event has. */
const common = {
  id: z.string(),
  seq: z.number().int(),
  timestamp: z.string(),
  sessionId: nullableText,
  source: z.string(),
  actor: nullableText,
  recordedBy: recordedBy.optional(),
};

/** A stored message. */
export const MessageOutput = z.looseObject({
  kind: z.literal('message'),
  ...common,
  speaker: z.string(),
  content: z.string(),
  retainUntil: z.string().optional(),
});

/** A stored document. */
export const DocumentOutput = z.looseObject({
  kind: z.literal('document'),
  ...common,
  name: z.string(),
  text: z.string(),
  mediaType: z.string(),
  sha256: z.string().optional(),
  retainUntil: z.string().optional(),
});

/** A stored recall: which ids entered a context, for which query. */
export const RecallOutput = z.looseObject({
  kind: z.literal('recall'),
  ...common,
  query: z.string(),
  recalled: z.array(z.string()),
});

/** A stored deletion. */
export const DeletionOutput = z.looseObject({
  kind: z.literal('deletion'),
  ...common,
  targets: z.array(z.string()),
  reason: z.string(),
  requestedBy: z.string().optional(),
});

/** A stored erasure: deleted content whose words were destroyed. */
export const ErasureOutput = z.looseObject({
  kind: z.literal('erasure'),
  ...common,
  targets: z.array(z.string()),
  reason: z.string(),
  requestedBy: z.string().optional(),
});

/** A message or a document deleted by now, returned without its text (see withheld-content.ts). */
export const WithheldOutput = z.looseObject({
  kind: z.enum(['message', 'document']),
  ...common,
  withheld: z.literal(true),
  deletedBy: z.string().describe('The Deletion that removed it.'),
});

/** A message or a document: what may enter a model's context. */
export const ContentOutput = z.discriminatedUnion('kind', [MessageOutput, DocumentOutput]);

/** Content as a read returns it: whole, or withheld because it has been deleted since. */
export const ReturnedOutput = z.union([MessageOutput, DocumentOutput, WithheldOutput]);

/** Any stored event. */
export const EventOutput = z.looseObject({
  kind: z.enum(EVENT_KINDS),
  ...common,
});

const memoryId = z.string().describe('The memory the call worked on.');

/** Result of `remember`. */
export const RememberOutput = z.object({ memoryId, event: MessageOutput });

/** Result of `add_document`. */
export const AddDocumentOutput = z.object({ memoryId, event: DocumentOutput });

/** Result of `recall`: the Recall on record, the items it put in the context, the vectors' lag. */
export const RecallToolOutput = z.object({
  memoryId,
  recall: RecallOutput,
  items: z.array(ContentOutput),
  vectors: z
    .object({
      requested: z.string(),
      state: z.enum(['current', 'lagging', 'building', 'unavailable']),
      model: z.string(),
      dimensions: z.number().int(),
      indexedThroughSeq: z.number().int().nullable(),
      behind: z.number().int(),
      reason: z.string().optional(),
    })
    .optional(),
});

/** Whether an erasure's words are gone from disk, or why the scrub is still pending. */
const CleanupOutput = z.object({
  state: z.enum(['done', 'pending']),
  reason: z.string().optional(),
  since: z.string().optional(),
});

/**
 * Result of `forget`: the Deletion, and when `erase` was asked for the Erasure and whether its
 * words are gone from disk yet (`cleanup`).
 */
export const ForgetOutput = z.object({
  memoryId,
  deletion: DeletionOutput,
  erasure: ErasureOutput.optional(),
  cleanup: CleanupOutput.optional(),
});

/** Result of `search`: hits, best first. */
export const SearchOutput = z.object({
  memoryId,
  hits: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['message', 'document']),
      seq: z.number().int(),
      score: z.number().describe('BM25 relevance relative to the best hit (1).'),
      item: ReturnedOutput,
    }),
  ),
});

const RecallStatOutput = z.object({
  count: z.number().int(),
  lastRecalledAt: z.string(),
  lastRecalledSeq: z.number().int(),
});

const nextOffset = z.number().int().nullable();

/** Result of `state_at`: one page of the state's lists, with totals. */
export const StateAtOutput = z.object({
  memoryId,
  lastSeq: z.number().int().nullable(),
  visibleMessages: z.array(z.union([MessageOutput, WithheldOutput])),
  visibleDocuments: z.array(z.union([DocumentOutput, WithheldOutput])),
  page: z.object({
    offset: z.number().int(),
    limit: z.number().int(),
    next: z.object({
      visibleMessages: nextOffset,
      visibleDocuments: nextOffset,
      deleted: nextOffset,
    }),
  }),
  totals: z.object({
    messages: z.number().int(),
    documents: z.number().int(),
    visibleMessages: z.number().int(),
    visibleDocuments: z.number().int(),
    deleted: z.number().int(),
  }),
  deleted: z.record(z.string(), DeletionOutput),
  erased: z
    .record(z.string(), ErasureOutput)
    .describe('Of the deleted ids on this page, those erased by then: their words are gone.'),
  recallStats: z.record(z.string(), RecallStatOutput),
});

/** Result of `history`: written, recalled by which queries, deleted and erased by whom. */
export const HistoryOutput = z.object({
  memoryId,
  event: z.union([MessageOutput, DocumentOutput, WithheldOutput, EventOutput]),
  recalls: z.array(
    z.object({
      recallId: z.string(),
      query: z.string(),
      seq: z.number().int(),
      timestamp: z.string(),
      actor: nullableText,
      recordedBy,
      sessionId: nullableText,
      retrieval: z.looseObject({ method: z.string(), model: nullableText }),
    }),
  ),
  deletedBy: DeletionOutput.nullable(),
  erasedBy: ErasureOutput.nullable(),
});

/**
 * Result of `receipt`: the memory's checkpoint now (a signed note when the server has a key) and
 * the proof that the event at `seq` is in it. `leaf` is left out for deleted content.
 */
export const ReceiptOutput = z.object({
  memoryId,
  checkpoint: z.string().describe('The checkpoint note (C2SP signed-note), as served.'),
  signed: z.boolean(),
  origin: z.string(),
  logKey: z.string().nullable().describe("The log's verifier key line, null when unsigned."),
  proof: z.object({
    seq: z.number().int(),
    treeSize: z.number().int(),
    leaf: z.string().optional().describe('The memledger/leaf/v1 bytes, base64.'),
    leafHash: z.string(),
    path: z.array(z.string()),
  }),
  withheld: z.string().optional().describe('Why the leaf bytes were left out.'),
});
