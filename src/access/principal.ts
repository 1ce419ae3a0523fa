/**
 * An authenticated principal and the pure decision over it: `authorize(principal, memoryId,
 * right)` looks at the grants alone — never at the store — so whether a memory exists can never
 * change the answer (invariant 11 in docs/architecture.md: to a caller who may not read a memory, it is
 * indistinguishable from one that does not exist).
 */
import { MemoryError, type RecordedBy } from '../core/index.js';
import { patternCovers, patternMatches, type MemoryPattern } from './memory-pattern.js';
import { RIGHTS, type Right } from './rights.js';

/** Rights over the memories some patterns reach. */
export interface Grant {
  readonly memories: readonly MemoryPattern[];
  readonly rights: readonly Right[];
}

/** Who is asking, as authenticated, and what they were granted. */
export interface Principal {
  /**
   * What events appended for this principal record as `recordedBy`; `null` on a server that
   * requires no authentication (nobody was authenticated, so nobody is named).
   */
  readonly recordedBy: RecordedBy;
  readonly grants: readonly Grant[];
  /** The access key it authenticated with: its revocation ends its open streams and sessions. */
  readonly keyId?: string;
  /** When its credential stops being valid (a JWT's `exp`), in epoch milliseconds. */
  readonly expiresAt?: number;
}

/** Every right on every memory. */
export const ALL_MEMORIES: readonly Grant[] = [{ memories: ['*'], rights: RIGHTS }];

/** The principal of a server that requires no authentication: every right, nobody on record. */
export const UNAUTHENTICATED: Principal = { recordedBy: null, grants: ALL_MEMORIES };

/** The holder of the shared API token (`MEMLEDGER_API_TOKEN`): every right, principal `token`. */
export const TOKEN_PRINCIPAL: Principal = {
  recordedBy: { principal: 'token', via: 'token' },
  grants: ALL_MEMORIES,
};

/** A principal the host process vouches for (`via: local`), with the grants it was given. */
export function localPrincipal(name: string, grants: readonly Grant[] = ALL_MEMORIES): Principal {
  return { recordedBy: { principal: name, via: 'local' }, grants };
}

/** True when `principal` holds `right` on the memory `memoryId`. */
export function authorize(principal: Principal, memoryId: string, right: Right): boolean {
  for (const grant of principal.grants) {
    if (!grant.rights.includes(right)) continue;
    for (const pattern of grant.memories) if (patternMatches(pattern, memoryId)) return true;
  }
  return false;
}

/** The rights `principal` holds on `memoryId`, in {@link RIGHTS} order. */
export function rightsOn(principal: Principal, memoryId: string): Right[] {
  return RIGHTS.filter((right) => authorize(principal, memoryId, right));
}

/** Who a principal is, for messages: `Principal <name>`, or `This caller` when unauthenticated. */
export function principalName(principal: Principal): string {
  return principal.recordedBy === null
    ? 'This caller'
    : `Principal ${principal.recordedBy.principal}`;
}

/**
 * `FORBIDDEN` naming the missing right. The message names only what the caller sent (the memory
 * id) and what it lacks, so it reads the same for a memory that exists and one that does not.
 */
export function forbidden(principal: Principal, memoryId: string, right: Right): MemoryError {
  return new MemoryError(
    'FORBIDDEN',
    `${principalName(principal)} lacks the right "${right}" on memory ${memoryId}.`,
    { details: { right, memoryId } },
  );
}

/** Throws {@link forbidden} unless `principal` holds `right` on `memoryId`. */
export function requireRight(principal: Principal, memoryId: string, right: Right): void {
  if (!authorize(principal, memoryId, right)) throw forbidden(principal, memoryId, right);
}

/**
 * True when `admin` may hand out (or list, or revoke) `grant`: for every pattern and right of it,
 * one grant of `admin` holds `admin` and that right on a pattern covering it. A key never reaches
 * past its grant, so neither can a key it creates.
 */
export function mayGrant(admin: Principal, grant: Grant): boolean {
  return grant.memories.every((pattern) =>
    grant.rights.every((right) =>
      admin.grants.some(
        (held) =>
          held.rights.includes('admin') &&
          held.rights.includes(right) &&
          held.memories.some((outer) => patternCovers(outer, pattern)),
      ),
    ),
  );
}

/** True when `principal` holds `admin` on at least one memory. */
export function isAdmin(principal: Principal): boolean {
  return principal.grants.some((grant) => grant.rights.includes('admin'));
}

/**
 * True for an address only this machine reaches: where a server with nothing that
 * authenticates callers may listen.
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}
