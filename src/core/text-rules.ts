/**
 * The rules every text field of an event follows, shared by the field and event schemas (not part
 * of the public API: the schemas built with them are).
 */
import { z } from 'zod';

/**
 * A lone surrogate is half of a UTF-16 pair: it is no Unicode character, cannot be encoded as
 * UTF-8 and would come back from a store or a UTF-8 client as U+FFFD, so it is refused. With the
 * `u` flag a well-formed pair is one code point, so this class matches only the lone halves.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Text that is valid Unicode: no lone surrogate. */
export const wellFormed = <S extends z.ZodString>(schema: S) =>
  schema.refine((s) => !LONE_SURROGATE.test(s), {
    message: 'must be valid Unicode text (no lone surrogate U+D800 to U+DFFF)',
  });

/** A label of at most `max` characters (may be empty): session ids, actors, who asked. */
export const label = (max: number) =>
  wellFormed(z.string().max(max, { message: `must be at most ${max} characters` }));

/**
 * At least one non-whitespace character that is not a control character either (a NUL-only
 * speaker names no one), at most `max` characters, valid Unicode.
 */
export const nonEmpty = (max: number) =>
  wellFormed(z.string().max(max, { message: `must be at most ${max} characters` }))
    .refine((s) => s.trim().length > 0, {
      message: 'must contain at least one non-whitespace character',
    })
    .refine((s) => s.trim().length === 0 || /[^\s\p{Cc}]/u.test(s), {
      message:
        'must contain at least one character that is neither whitespace nor a control character',
    });
