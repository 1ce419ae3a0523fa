/**
 * Which memories a grant reaches: an exact memory id (`user-42`), a prefix wildcard (`team-*`:
 * every id that starts with `team-`), or `*` (every memory). Nothing else: no infix or suffix
 * wildcard, so what a pattern reaches is plain to read and to compare.
 */
import { z } from 'zod';
import { MemoryError, MemoryId } from '../core/index.js';

/** A memory id, `<prefix>*`, or `*`. */
export const MemoryPattern = z
  .string()
  .regex(/^(\*|[A-Za-z0-9._-]{1,127}\*|[A-Za-z0-9._-]{1,128})$/, {
    message: 'must be a memory id, a prefix followed by *, or *',
  })
  .refine((pattern) => pattern.endsWith('*') || MemoryId.safeParse(pattern).success, {
    message: 'must not be "." or ".."',
  });
/** A memory id, `<prefix>*`, or `*`. */
export type MemoryPattern = z.infer<typeof MemoryPattern>;

/** A non-empty list of memory patterns. */
export const MemoryPatterns = z
  .array(MemoryPattern)
  .min(1, { message: 'must name at least one memory pattern' })
  .max(1000, { message: 'must hold at most 1000 patterns' });

/** True when `pattern` reaches the memory `memoryId`. */
export function patternMatches(pattern: string, memoryId: string): boolean {
  if (pattern.endsWith('*')) return memoryId.startsWith(pattern.slice(0, -1));
  return pattern === memoryId;
}

/**
 * True when everything `inner` reaches, `outer` reaches too (`team-*` covers `team-a` and
 * `team-a*`; `*` covers everything; an exact id covers only itself).
 */
export function patternCovers(outer: string, inner: string): boolean {
  if (outer.endsWith('*')) return inner.startsWith(outer.slice(0, -1));
  return outer === inner;
}

/** The patterns a comma-separated list names; `VALIDATION_FAILED` naming `field` otherwise. */
export function parsePatternList(text: string, field = 'memories'): MemoryPattern[] {
  const patterns = text
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '');
  const parsed = MemoryPatterns.safeParse(patterns);
  if (parsed.success) return [...new Set(parsed.data)];
  const issue = parsed.error.issues[0];
  const which = typeof issue?.path[0] === 'number' ? ` (${patterns[issue.path[0]]})` : '';
  const rule = `${issue?.message ?? 'is invalid'}${which}`;
  throw new MemoryError('VALIDATION_FAILED', `Invalid ${field} ${JSON.stringify(text)}: ${rule}.`, {
    issues: [{ path: field, message: rule }],
  });
}
