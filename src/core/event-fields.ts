/**
 * The fields events share (docs/architecture.md): ids, timestamps, seqs, memory ids and who
 * recorded an event. A schema and its type share one name.
 */
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { nonEmpty } from './text-rules.js';
import { normalizeTimestamp, timestampFromDate } from './timestamp.js';

/** An event id: any RFC 9562 UUID, stored lowercase so equal ids compare equal. */
export const EventId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: 'must be a UUID (8-4-4-4-12 hex digits)',
  })
  .transform((id) => id.toLowerCase());
/** An event id. */
export type EventId = z.infer<typeof EventId>;

/** A point in time with an explicit offset (or a `Date`), normalized to canonical UTC `...Z`. */
export const Timestamp = z
  .union([
    z.string(),
    z.custom<Date>((v) => v instanceof Date, { message: 'must be a string or a Date' }),
  ])
  .transform((value, ctx) => {
    const result = typeof value === 'string' ? normalizeTimestamp(value) : timestampFromDate(value);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.reason });
    return z.NEVER;
  });
/** A canonical UTC timestamp string. */
export type Timestamp = z.infer<typeof Timestamp>;

/** A position in a memory's log: 0 for the first event. */
export const Seq = z.number().int({ message: 'must be an integer' }).min(0, {
  message: 'must be 0 or more',
});

/**
 * Memory ids: 1 to 128 of `A-Z a-z 0-9 . _ -`, but not `.` or `..`: those are path segments
 * (URLs resolve them away, file-backed stores would read them as folders), so they name nothing.
 */
export const MemoryId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/, { message: 'must be 1 to 128 of A-Z a-z 0-9 . _ -' })
  .refine((id) => id !== '.' && id !== '..', { message: 'must not be "." or ".."' });
/** A memory id. */
export type MemoryId = z.infer<typeof MemoryId>;

/** The memory used when none is named. */
export const DEFAULT_MEMORY_ID = 'default';

/**
 * How a principal was authenticated: an access key (`key:<key id>`), a JWT from an identity
 * provider (`jwt:<issuer>`), the shared API token (`token`), or the host process itself
 * (`local`: a library or Nest host that authenticated its caller its own way).
 */
export const PrincipalVia = z
  .string()
  .regex(/^(key:[A-Za-z0-9_-]{1,64}|jwt:[^\s]{1,256}|token|local)$/, {
    message: 'must be key:<key id>, jwt:<issuer>, token or local',
  });

/**
 * Who appended an event, as the server (or the host application) authenticated them: never a
 * client's claim (that is `actor`). `null` on events written without an authenticated principal,
 * and on every event written before principals existed (schema versions before 3 / 2).
 */
export const RecordedBy = z
  .strictObject({
    principal: nonEmpty(LIMITS.label),
    via: PrincipalVia,
  })
  .nullable();
/** Who appended an event, as authenticated (or `null`). */
export type RecordedBy = z.infer<typeof RecordedBy>;
