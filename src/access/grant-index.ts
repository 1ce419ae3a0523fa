/**
 * The in-memory index every grant store keeps: keys by id and by the digest of their secret, and
 * who listens for revocations. The stores feed it the records they read, in order.
 */
import { MemoryError } from '../core/index.js';
import { digestsMatch, looksLikeKeySecret, secretDigest } from './access-key.js';
import type { AccessKey, GrantRecord, RevocationRecord } from './grant-store.port.js';

/** Grants and revocations read so far. */
export class GrantIndex {
  private readonly byId = new Map<string, AccessKey>();
  private readonly byDigest = new Map<string, { readonly digest: string; readonly id: string }>();
  private readonly listeners = new Set<(keyId: string) => void>();

  /** Every key, oldest first. */
  keys(): readonly AccessKey[] {
    return [...this.byId.values()];
  }

  /** The key `keyId`, if granted. */
  key(keyId: string): AccessKey | undefined {
    return this.byId.get(keyId);
  }

  /** True once any key was granted. */
  get everGranted(): boolean {
    return this.byId.size > 0;
  }

  /** Adds a grant (a repeat of one already read is ignored). */
  grant(record: GrantRecord): void {
    if (this.byId.has(record.key.id)) return;
    this.byId.set(record.key.id, { ...record.key, revokedAt: null, revokedBy: null });
    this.byDigest.set(record.secretSha256, { digest: record.secretSha256, id: record.key.id });
  }

  /** Marks a key revoked (the first revocation wins) and tells the listeners. */
  revoke(record: RevocationRecord): void {
    const key = this.byId.get(record.keyId);
    if (key === undefined || key.revokedAt !== null) return;
    this.byId.set(record.keyId, {
      ...key,
      revokedAt: record.revokedAt,
      revokedBy: record.revokedBy,
    });
    for (const listener of this.listeners) listener(record.keyId);
  }

  /**
   * The valid key whose secret this is. The lookup goes by the secret's SHA-256 digest, which
   * tells an attacker nothing about any stored digest; the digests are then compared in
   * constant time all the same.
   */
  keyOfSecret(secret: string): AccessKey | undefined {
    if (!looksLikeKeySecret(secret)) return undefined;
    const digest = secretDigest(secret);
    const found = this.byDigest.get(digest);
    if (found === undefined || !digestsMatch(found.digest, digest)) return undefined;
    const key = this.byId.get(found.id);
    return key?.revokedAt === null ? key : undefined;
  }

  /** Registers a revocation listener. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The key `keyId`, or `ACCESS_KEY_UNKNOWN` naming where it was looked for. */
  require(keyId: string, where: string): AccessKey {
    const key = this.byId.get(keyId);
    if (key !== undefined) return key;
    throw new MemoryError(
      'ACCESS_KEY_UNKNOWN',
      `Access key ${keyId} was never granted in ${where}.`,
      {
        details: { keyId },
      },
    );
  }
}
