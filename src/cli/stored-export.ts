/**
 * The stored-form export (`memledger export --stored`) and reading it back as leaves: each line
 * is one event as the store keeps it — `seq`, `kind`, `id`, the schema `version` it was stored in
 * and its stored fields, sealed words sealed, nothing upcast — which is exactly what its
 * memledger/leaf/v1 leaf binds (docs/leaf-v1.md §6). The leaf's type is the kind's wire type and
 * its body every member but `seq`, `kind`, `id` and `version`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { EVENT_KINDS, EVENT_TYPES, MemoryError, UNVERSIONED } from '../core/index.js';
import { kindOfType } from '../store/codec.js';
import type { ProjectedEvent } from '../store/projection.port.js';
import { leafHashOf } from '../tlog/index.js';
import { isVerifyError, leafBytes } from '../verify/index.js';
import type { AuditedLeaf } from './checkpoint-audit.js';

/** The stored-form export line of one event. */
export function storedExportLine(projected: ProjectedEvent): string {
  const { event, stored } = projected;
  const kind = kindOfType(stored.type, event.seq, 'the export');
  return JSON.stringify({
    seq: event.seq,
    kind,
    id: event.id,
    version: stored.version,
    ...stored.body,
  });
}

/**
 * The leaves of memory `memoryId` from a stored-form export file, in file order. A line that is
 * not one event in the stored form is `EVENT_DECODE_FAILED` naming its line (and seq).
 */
export async function* exportLeaves(path: string, memoryId: string): AsyncGenerator<AuditedLeaf> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  for await (const text of lines) {
    number++;
    if (text.trim() === '') continue;
    yield leafOfLine(text, number, memoryId);
  }
}

function leafOfLine(text: string, line: number, memoryId: string): AuditedLeaf {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw bad(line, undefined, `it is not JSON (${(error as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw bad(line, undefined, 'it is not a JSON object');
  }
  const { seq, kind, id, version = UNVERSIONED, ...body } = json as Record<string, unknown>;
  if (typeof seq !== 'number') throw bad(line, undefined, 'its seq is not a number');
  if (!(EVENT_KINDS as readonly unknown[]).includes(kind)) {
    throw bad(line, seq, `its kind ${JSON.stringify(kind)} is not an event kind`);
  }
  try {
    const bytes = leafBytes({
      memory: memoryId,
      seq,
      id: id as string,
      type: EVENT_TYPES[kind as keyof typeof EVENT_TYPES],
      version: version as number,
      body,
    });
    return { seq, hash: leafHashOf(bytes) };
  } catch (error) {
    if (!isVerifyError(error)) throw error;
    throw bad(line, seq, error.message);
  }
}

function bad(line: number, seq: number | undefined, why: string): MemoryError {
  return new MemoryError(
    'EVENT_DECODE_FAILED',
    `Line ${line} of the export is not an event in its stored form: ${why}.`,
    { details: { line, ...(seq === undefined ? {} : { seq }) } },
  );
}
