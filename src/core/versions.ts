/**
 * Event schema versions and upcasters (docs/architecture.md "Event versions").
 *
 * Events are immutable: an event keeps the shape it was written in forever, in SQLite files,
 * EventStoreDB streams and JSON Lines exports. Every store records the version beside each
 * event, and every read path runs {@link upcast} before validation, so the rest of the code sees
 * only the current shape. A version this code does not know is refused, never guessed at.
 *
 * History (docs/evolving-events.md tells how to add a version):
 * - message 1, document 1, recall 1, deletion 1: memledger 0.1.0 (no version was recorded then:
 *   a stored event without one is version 1).
 * - message 2, document 2 (0.2.0): the content fields may be stored sealed — encrypted with the
 *   item's own key, in `sealed` (see {@link SEALED_FIELDS}) — so that an erasure can destroy
 *   them. Plain text stays valid, so a version-1 event is a version-2 event as it stands.
 * - erasure 1 (0.2.0): the fifth kind. A reader older than 0.2.0 does not know its type.
 * - message 3, document 3, recall 2, deletion 2, erasure 2 (0.3.0): `recordedBy`, the principal
 *   the server authenticated (older events read as `null`: nobody was authenticated); and on a
 *   recall, `retrieval` (older recalls read as lexical: BM25 was the only retrieval then).
 * - recall 3 (0.3.0): `retrieval.vectors`, how the vectors were searched (quantization,
 *   oversampling, cells, probes), so an audit tells an exact ranking from an approximate one.
 *   Recall 2 did not record it: it reads as `null`, not known.
 */
import { MemoryError } from './errors.js';
import type { EventKind } from './events.js';

/** The schema version this code writes for each kind. */
export const EVENT_VERSIONS = {
  message: 3,
  document: 3,
  recall: 3,
  deletion: 2,
  erasure: 2,
} as const satisfies Record<EventKind, number>;

/** The version of an event stored without one: the shapes memledger 0.1.0 wrote. */
export const UNVERSIONED = 1;

/** The stored fields of an event (JSON, without `seq`), as one version wrote them. */
export type StoredFields = Readonly<Record<string, unknown>>;

/** Turns version `n` of a kind into version `n + 1`. Pure; never drops information. */
export type Upcaster = (fields: StoredFields) => StoredFields;

/** `UPCASTERS[kind][n]` lifts version `n` to `n + 1`; one entry per version below the current. */
export type UpcasterTable = Readonly<Record<EventKind, Readonly<Record<number, Upcaster>>>>;

/** Version 2 added the sealed alternative only: plain text is the same in both. */
const plainTextStaysValid: Upcaster = (fields) => fields;

/** Before principals, nobody appending was authenticated. */
const nobodyRecorded: Upcaster = (fields) => ({ ...fields, recordedBy: null });

/** Before retrieval was recorded, every recall was BM25 over the search read model. */
const lexicalRecall: Upcaster = (fields) => ({
  ...fields,
  recordedBy: null,
  retrieval: { method: 'lexical', model: null, dimensions: null, fusion: null },
});

/** Recall 2 recorded no vector search settings: not known, whatever the method. */
const vectorsNotRecorded: Upcaster = (fields) => {
  const retrieval = fields.retrieval;
  if (typeof retrieval !== 'object' || retrieval === null) return fields;
  return { ...fields, retrieval: { ...retrieval, vectors: null } };
};

/** memledger's upcasters. */
export const UPCASTERS: UpcasterTable = {
  message: { 1: plainTextStaysValid, 2: nobodyRecorded },
  document: { 1: plainTextStaysValid, 2: nobodyRecorded },
  recall: { 1: lexicalRecall, 2: vectorsNotRecorded },
  deletion: { 1: nobodyRecorded },
  erasure: { 1: nobodyRecorded },
};

/** Where a stored event was read, for errors: e.g. `memory-default` and its seq. */
export interface StoredAt {
  readonly where: string;
  readonly seq: number;
}

/**
 * Brings the stored fields of a `kind` event written in `version` to the current shape.
 * Throws `EVENT_VERSION_UNSUPPORTED` for a version newer than this code writes (a newer
 * memledger wrote it: upgrade) or one that was never written (not a positive integer).
 */
export function upcast(
  kind: EventKind,
  version: unknown,
  fields: StoredFields,
  at: StoredAt,
  upcasters: UpcasterTable = UPCASTERS,
): StoredFields {
  const current = currentVersion(kind, upcasters);
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw unsupported(kind, version, current, at, 'is not a schema version memledger writes');
  }
  if (version > current) {
    throw unsupported(
      kind,
      version,
      current,
      at,
      `was written by a newer memledger; install a release that reads ${kind} version ${version} or later`,
    );
  }
  let lifted = fields;
  for (let v = version; v < current; v++) lifted = upcasters[kind][v]!(lifted);
  return lifted;
}

/** The version a table upcasts to: one past its highest upcaster, 1 when it has none. */
function currentVersion(kind: EventKind, upcasters: UpcasterTable): number {
  const steps = Object.keys(upcasters[kind]).map(Number);
  return steps.length === 0 ? 1 : Math.max(...steps) + 1;
}

function unsupported(
  kind: EventKind,
  version: unknown,
  current: number,
  at: StoredAt,
  why: string,
): MemoryError {
  return new MemoryError(
    'EVENT_VERSION_UNSUPPORTED',
    `Stored ${kind} at ${at.where} seq ${at.seq} has schema version ${JSON.stringify(version)}, which ${why} (this memledger reads ${kind} versions 1 to ${current}).`,
    { details: { where: at.where, seq: at.seq, kind, version, reads: current } },
  );
}
