/**
 * Reading an import file: JSON Lines, one event per line in the wire format. Every line is
 * checked before anything is written, and every bad line is reported as `line N: <path>: <rule>`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isMemoryError, parseEvent, type MemoryEvent } from '../core/index.js';

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
 */
export function parseImportLine(text: string, line: number): ImportLine | LineProblem[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return [{ line, path: '(root)', rule: `invalid JSON (${(error as Error).message})` }];
  }
  if (typeof json === 'object' && json !== null && !Array.isArray(json) && 'seq' in json) {
    const { seq: _ignored, ...rest } = json as Record<string, unknown>;
    json = rest;
  }
  try {
    return { line, event: parseEvent(json) };
  } catch (error) {
    if (!isMemoryError(error, 'VALIDATION_FAILED')) throw error;
    return error.issues.map((issue) => ({ line, path: issue.path, rule: issue.message }));
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
