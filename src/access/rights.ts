/**
 * What a principal may do with a memory (issue 31): `read` (state, events, history, search,
 * export, the event stream, the recall audit), `recall` (the auditable read), `write` (messages,
 * documents, recorded recalls), `delete`, `erase`, `admin` (manage access keys).
 */
import { z } from 'zod';
import { MemoryError } from '../core/index.js';

/** Every right, in the order they are listed. */
export const RIGHTS = ['read', 'recall', 'write', 'delete', 'erase', 'admin'] as const;

/** One right. */
export const Right = z.enum(RIGHTS, { message: `must be one of ${RIGHTS.join(', ')}` });
/** One right. */
export type Right = z.infer<typeof Right>;

/** A non-empty list of rights without repeats (order does not matter). */
export const Rights = z
  .array(Right)
  .min(1, { message: 'must name at least one right' })
  .max(RIGHTS.length, { message: `must hold at most ${RIGHTS.length} rights` })
  .refine((rights) => new Set(rights).size === rights.length, {
    message: 'must not repeat a right',
  });
/** A non-empty list of rights. */
export type Rights = z.infer<typeof Rights>;

/**
 * The rights a comma-separated list names (`read,recall`; `all` for every right), in
 * {@link RIGHTS} order; `VALIDATION_FAILED` naming `field` for anything else.
 */
export function parseRightsList(text: string, field = 'rights'): Right[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 1 && names[0] === 'all') return [...RIGHTS];
  const parsed = Rights.safeParse(names);
  if (!parsed.success) {
    const rule = parsed.error.issues[0]?.message ?? 'is invalid';
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${field} ${JSON.stringify(text)}: ${rule} (rights are ${RIGHTS.join(', ')}, or all).`,
      { issues: [{ path: field, message: rule }] },
    );
  }
  return RIGHTS.filter((right) => parsed.data.includes(right));
}
