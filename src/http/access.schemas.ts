/**
 * Bodies and answers of the access routes (`/api/access/...`): a new key, a key as listed (never
 * its secret), a key just created (its secret, shown once), and who the caller is.
 */
import { z } from 'zod';
import { MemoryId, RecordedBy, Timestamp } from '../core/index.js';
import { MemoryPatterns, NewKey, Right, Rights } from '../access/index.js';

/** `POST /api/access/keys`: who the key is for, which memories, which rights. */
export const KeyBody = NewKey;

/** Query of `GET /api/access/me`: the memory whose rights to list. */
export const MeQuery = z.strictObject({ memory: MemoryId.optional() });

/** An access key as listed: never its secret. */
export const AccessKey = z.strictObject({
  id: z.string(),
  principal: NewKey.shape.principal,
  memories: MemoryPatterns,
  rights: Rights,
  createdAt: Timestamp,
  createdBy: RecordedBy,
  revokedAt: Timestamp.nullable(),
  revokedBy: RecordedBy,
});

/** Every key an admin may see. */
export const AccessKeys = z.array(AccessKey);

/** A key just created, with its secret: shown this once, stored only as a digest. */
export const CreatedKey = AccessKey.extend({ secret: z.string() });

/** `GET /api/access/me`: the caller as authenticated, its grants, its rights on one memory. */
export const AccessMe = z.strictObject({
  /** Whether the server requires a key (false: nothing is configured, everyone may do anything). */
  authenticationRequired: z.boolean(),
  recordedBy: RecordedBy,
  grants: z.array(z.strictObject({ memories: MemoryPatterns, rights: Rights })),
  /** The rights on `?memory=`, when asked. */
  rights: z.array(Right).optional(),
});

/** The access answers, as response components. */
export const ACCESS_RESPONSE_SCHEMAS = { AccessKey, AccessKeys, CreatedKey, AccessMe } as const;
