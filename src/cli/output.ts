/** Writing a command's results: lines to stdout or a file, honouring back-pressure. */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';

/** Writes one line, waiting for the stream to drain when its buffer is full. */
export async function writeLine(stream: Writable, line: string): Promise<void> {
  if (!stream.write(`${line}\n`)) await once(stream, 'drain');
}

/** Writes each line of `lines` to stdout. */
export async function printLines(lines: Iterable<string>): Promise<void> {
  for (const line of lines) await writeLine(process.stdout, line);
}

/**
 * Writes to `path` through a temporary file renamed into place at the end, so a failed or
 * interrupted run never leaves a truncated file under the requested name.
 */
export async function writeFileAtomically(
  path: string,
  work: (stream: Writable) => Promise<void>,
): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const stream = createWriteStream(temporary, { flags: 'wx' });
  try {
    await once(stream, 'open');
    await work(stream);
    stream.end();
    await once(stream, 'finish');
    await rename(temporary, path);
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The first `max` characters of a text on one line (whitespace collapsed), with `…` when cut. */
export function preview(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

/** A seq for people: the number, or `none` for an empty log. */
export function seqText(seq: number | null): string {
  return seq === null ? 'none' : String(seq);
}
