import { MemoryError } from '../core/index.js';
import type { ReadOptions } from './event-log.port.js';

/** A read request with its defaults resolved: seqs `lo..hi` inclusive, walked in `direction`. */
export interface ReadRange {
  readonly lo: number;
  readonly hi: number;
  readonly direction: 'forwards' | 'backwards';
  readonly limit: number;
}

const checkSeq = (name: string, value: number | undefined): void => {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid read: ${name} must be an integer of 0 or more, got ${value}.`,
      {
        issues: [{ path: name, message: 'must be an integer of 0 or more' }],
      },
    );
  }
};

/** Resolves {@link ReadOptions} against a log whose last seq is `lastSeq`. */
export function resolveReadRange(options: ReadOptions, lastSeq: number | null): ReadRange {
  checkSeq('fromSeq', options.fromSeq);
  checkSeq('toSeq', options.toSeq);
  if (options.limit !== undefined && (!Number.isSafeInteger(options.limit) || options.limit < 0)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid read: limit must be an integer of 0 or more, got ${options.limit}.`,
      {
        issues: [{ path: 'limit', message: 'must be an integer of 0 or more' }],
      },
    );
  }
  const direction = options.direction ?? 'forwards';
  const end = lastSeq ?? -1;
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
  if (direction === 'forwards') {
    return { direction, limit, lo: options.fromSeq ?? 0, hi: Math.min(options.toSeq ?? end, end) };
  }
  return { direction, limit, lo: options.toSeq ?? 0, hi: Math.min(options.fromSeq ?? end, end) };
}
