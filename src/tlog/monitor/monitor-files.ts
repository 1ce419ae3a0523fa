/**
 * The monitor's files: the saved checkpoint note (replaced atomically, so a crash leaves the old
 * one or the new one, never half of either) and the evidence kept when a check fails.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { MemoryError } from '../../core/index.js';

/** The saved note, or undefined when there is none yet. `TLOG_STATE_INVALID` when unreadable. */
export function readSavedNote(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw new MemoryError(
      'TLOG_STATE_INVALID',
      `Cannot read the saved checkpoint ${path}: ${(error as Error).message}.`,
      {
        details: { path },
        cause: error,
      },
    );
  }
}

/** Writes `text` to `path` (its folder made if need be) through a synced temporary file renamed into place. */
export function writeFileAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

/** What a failed check keeps: the saved note, the fetched one, the proof as received. */
export interface Evidence {
  readonly saved?: string;
  readonly fetched?: string;
  readonly proof?: string;
}

/**
 * Writes the evidence beside the state file as `<state>.<time>.saved.note`, `.fetched.note`
 * and `.proof.json`, never replacing a file; returns the paths written.
 */
export function keepEvidence(statePath: string, at: Date, evidence: Evidence): string[] {
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  const files: [string, string | undefined][] = [
    ['saved.note', evidence.saved],
    ['fetched.note', evidence.fetched],
    ['proof.json', evidence.proof],
  ];
  const written: string[] = [];
  for (const [suffix, text] of files) {
    if (text === undefined) continue;
    const path = `${statePath}.${stamp}.${suffix}`;
    const fd = openSync(path, 'wx', 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    written.push(path);
  }
  return written;
}
