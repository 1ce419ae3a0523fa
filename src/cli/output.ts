/** Writing a command's results: lines to stdout or a file, honouring back-pressure. */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';

/**
 * Writes one line, waiting for the stream to drain when its buffer is full. A stream whose
 * reader has gone (`memledger export | head`) fails the write with `EPIPE`, which stops the
 * command: see {@link isClosedOutput}.
 */
export async function writeLine(stream: Writable, line: string): Promise<void> {
  if (stream.destroyed) throw closedOutput();
  if (!stream.write(`${line}\n`)) await once(stream, 'drain');
}

function closedOutput(): Error {
  return Object.assign(new Error('the output was closed by its reader'), { code: 'EPIPE' });
}

/**
 * True for the error of a write to a pipe whose reader has gone: for a command line that is a
 * normal end (the reader had what it wanted), not a failure.
 */
export function isClosedOutput(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/**
 * Makes a closed stdout end the command quietly: the error a pipe's closing raises on stdout
 * is taken here (instead of crashing the process as an unhandled 'error'), and the next
 * {@link writeLine} stops the command.
 */
export function endQuietlyOnClosedOutput(): void {
  process.stdout.on('error', (error) => {
    if (!isClosedOutput(error)) throw error;
  });
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

/** The words that stand for content an Erasure destroyed, on every surface (CLI, page, MCP). */
export const ERASED_TEXT = '[erased]';

/** Who asked for a deletion or an erasure, for people: `not given` when the act names no one. */
export function requesterOf(act: { readonly requestedBy?: string | undefined }): string {
  return act.requestedBy ?? 'not given';
}
