/**
 * Reading an import file: JSON Lines, one event per line in the wire format. Every line is
 * checked before anything is written, and every bad line is reported as `line N: <path>: <rule>`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  EVENT_KINDS,
  isMemoryError,
  MemoryError,
  parseEventOrErased,
  UNVERSIONED,
  upcast,
  type EventKind,
  type MemoryEvent,
} from '../core/index.js';

/** One event of the file with the line it came from (1-based). */
export interface ImportLine {
  readonly line: number;
  readonly event: MemoryEvent;
}

/** One problem of one line. */
export interface LineProblem {
  readonly line: number;
  readonly path: string;
  readonly rule: string;
}

/** What a file holds: its valid events in file order, and the problems of its bad lines. */
export interface ParsedImportFile {
  readonly events: readonly ImportLine[];
  readonly problems: readonly LineProblem[];
}

/** `line N: <path>: <rule>` */
export function formatProblem(problem: LineProblem): string {
  return `line ${problem.line}: ${problem.path}: ${problem.rule}`;
}

/**
 * Parses one line. A `seq` field is dropped whatever its value: the store assigns seq, so an
 * export (which carries seqs) imports back, and imported events get the target log's next seqs.
 * A `version` field (the schema version of the line's kind, as `memledger export` writes it;
 * none means version 1) is dropped after the line is upcast to the current shape; a version this
 * memledger does not read throws `EVENT_VERSION_UNSUPPORTED` naming the line.
 */
export function parseImportLine(text: string, line: number): ImportLine | LineProblem[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return [{ line, path: '(root)', rule: `invalid JSON (${(error as Error).message})` }];
  }
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const { seq: _ignored, version = UNVERSIONED, ...rest } = json as Record<string, unknown>;
    json = upcastLine(rest, version, line);
  }
  try {
    // An export's erased item (words null, erased: true) imports as erased, into a sealed store.
    return { line, event: parseEventOrErased(json) };
  } catch (error) {
    if (!isMemoryError(error, 'VALIDATION_FAILED')) throw error;
    return error.issues.map((issue) => ({ line, path: issue.path, rule: issue.message }));
  }
}

/** The line's fields in the current shape (a line of an unknown kind is left to the schema). */
function upcastLine(fields: Record<string, unknown>, version: unknown, line: number): unknown {
  const kind = fields.kind;
  if (!EVENT_KINDS.includes(kind as EventKind)) return fields;
  try {
    return upcast(kind as EventKind, version, fields, { where: `line ${line}`, seq: line });
  } catch (error) {
    if (!isMemoryError(error, 'EVENT_VERSION_UNSUPPORTED')) throw error;
    const reads = error.details.reads;
    throw new MemoryError(
      'EVENT_VERSION_UNSUPPORTED',
      `Line ${line}: ${String(kind)} ${JSON.stringify(fields.id)} has schema version ${JSON.stringify(version)}, but this memledger reads ${String(kind)} versions 1 to ${String(reads)}; import it with a newer memledger.`,
      { details: { ...error.details, line }, cause: error },
    );
  }
}

/** Reads and checks the whole file: JSON, the event schema, and ids repeated within the file. */
export async function readImportFile(path: string): Promise<ParsedImportFile> {
  const events: ImportLine[] = [];
  const problems: LineProblem[] = [];
  const lineOfId = new Map<string, number>();
  const input = createReadStream(path, { encoding: 'utf8' });
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    if (text.trim() === '') continue; // blank lines (a trailing newline) carry no event
    const parsed = parseImportLine(text, line);
    if (Array.isArray(parsed)) {
      problems.push(...parsed);
      continue;
    }
    const first = lineOfId.get(parsed.event.id);
    if (first !== undefined) {
      problems.push({ line, path: 'id', rule: `repeats the id of line ${first}` });
      continue;
    }
    lineOfId.set(parsed.event.id, line);
    events.push(parsed);
  }
  return { events, problems };
}
