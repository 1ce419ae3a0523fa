/**
 * The grant store: where access keys are granted and revoked, insert-only, so every change is on
 * record. Each instance keeps every grant in memory (a few hundred bytes a key) and follows the
 * store for changes made elsewhere, so checking a key on a request reads no file.
 */
import { z } from 'zod';
import { RecordedBy } from '../core/index.js';
import { MemoryPatterns, type MemoryPattern } from './memory-pattern.js';
import { Rights, type Right } from './rights.js';

/** An access key as listed: never its secret (which is kept only as a digest). */
export interface AccessKey {
  readonly id: string;
  /** The principal its events are recorded under (`recordedBy.principal`). */
  readonly principal: string;
  readonly memories: readonly MemoryPattern[];
  readonly rights: readonly Right[];
  readonly createdAt: string;
  /** Who granted it, as authenticated (the operating-system user for the command line). */
  readonly createdBy: RecordedBy;
  /** When it was revoked; null while it is valid. */
  readonly revokedAt: string | null;
  readonly revokedBy: RecordedBy;
}

/** What a new key is granted. */
export const NewKey = z.strictObject({
  principal: RecordedBy.unwrap().shape.principal,
  memories: MemoryPatterns,
  rights: Rights,
});
/** What a new key is granted. */
export type NewKey = z.infer<typeof NewKey>;

/** A key just created: the record and its secret, which is shown this once and never again. */
export interface CreatedKey {
  readonly key: AccessKey;
  readonly secret: string;
}

/** A grant as the store records it: the key's fields and the digest of its secret. */
export interface GrantRecord {
  readonly key: Omit<AccessKey, 'revokedAt' | 'revokedBy'>;
  readonly secretSha256: string;
}

/** A revocation as the store records it. */
export interface RevocationRecord {
  readonly keyId: string;
  readonly revokedAt: string;
  readonly revokedBy: RecordedBy;
}

/** Where access keys live: the SQLite file of the store, or a stream of EventStoreDB. */
export interface GrantStore {
  /** Where, for messages (`SQLite <path>`, `EventStoreDB <endpoint> stream memledger-access`). */
  readonly description: string;
  /** Resolves once every grant and revocation recorded so far has been read. */
  ready(): Promise<void>;
  /** Grants a new key; its secret is returned once. */
  create(input: NewKey, by: RecordedBy): Promise<CreatedKey>;
  /** Revokes a key (again: no new record); `ACCESS_KEY_UNKNOWN` for an id never granted. */
  revoke(keyId: string, by: RecordedBy): Promise<AccessKey>;
  /** Every key ever granted, revoked ones included, oldest first. */
  keys(): readonly AccessKey[];
  /** The valid (not revoked) key whose secret this is, if any. */
  keyOfSecret(secret: string): AccessKey | undefined;
  /** True once any key was ever granted (revoking every key does not open the server again). */
  readonly everGranted: boolean;
  /** Calls `listener` with the id of each key revoked from now on, here or elsewhere. */
  onRevoked(listener: (keyId: string) => void): () => void;
  /** Stops following and closes what it opened. */
  close(): Promise<void>;
}
