/**
 * Who a credential belongs to. A server accepts access keys (`mlk_...`, from the grant store),
 * JWTs from an identity provider, and the shared API token (an all-rights key with principal
 * `token`). Until any of them is configured — a token or a JWT provider set, or a first key
 * granted — it requires nothing and names nobody on record.
 */
import { MemoryError } from '../core/index.js';
import { looksLikeKeySecret, tokensMatch } from './access-key.js';
import type { AccessKey, GrantStore } from './grant-store.port.js';
import { looksLikeJwt, type JwtVerifier } from './jwt-verifier.js';
import { TOKEN_PRINCIPAL, UNAUTHENTICATED, type Principal } from './principal.js';

/** What an {@link Authenticator} accepts. */
export interface AuthenticatorOptions {
  /** Where access keys live. */
  readonly grants: GrantStore;
  /** The shared API token, if any. */
  readonly apiToken?: string | undefined;
  /** The JWT verifier, if an identity provider is configured. */
  readonly jwt?: JwtVerifier | undefined;
  /** The JWT issuer, for {@link Authenticator.describe}. */
  readonly jwtIssuer?: string | undefined;
}

/** The principal of a valid access key. */
export function keyPrincipal(key: AccessKey): Principal {
  return {
    recordedBy: { principal: key.principal, via: `key:${key.id}` },
    grants: [{ memories: key.memories, rights: key.rights }],
    keyId: key.id,
  };
}

/** Turns credentials into principals. */
export class Authenticator {
  constructor(private readonly options: AuthenticatorOptions) {}

  /** The grant store. */
  get grants(): GrantStore {
    return this.options.grants;
  }

  /** True when requests must authenticate (a token, a JWT provider, or any key ever granted). */
  get required(): boolean {
    const { apiToken, jwt, grants } = this.options;
    return apiToken !== undefined || jwt !== undefined || grants.everGranted;
  }

  /**
   * The principal `credential` (a bearer value) authenticates; every right and nobody on record
   * while nothing is required. `UNAUTHORIZED` for a missing, unknown, revoked or refused one.
   */
  async authenticate(credential: string | undefined): Promise<Principal> {
    if (!this.required) return UNAUTHENTICATED;
    if (credential === undefined || credential === '') {
      throw new MemoryError(
        'UNAUTHORIZED',
        'This server requires a key: send Authorization: Bearer <access key, JWT or token>.',
      );
    }
    const { apiToken, jwt, grants } = this.options;
    if (apiToken !== undefined && tokensMatch(credential, apiToken)) return TOKEN_PRINCIPAL;
    if (looksLikeKeySecret(credential)) {
      const key = grants.keyOfSecret(credential);
      if (key) return keyPrincipal(key);
      throw new MemoryError(
        'UNAUTHORIZED',
        'The access key is not valid here (unknown or revoked).',
      );
    }
    if (jwt !== undefined && looksLikeJwt(credential)) return jwt(credential);
    throw new MemoryError('UNAUTHORIZED', 'The credential is not valid for this server.');
  }

  /** What the server accepts, for its start line (`access keys, JWT from <issuer>, API token`). */
  describe(): string {
    const { apiToken, jwt, jwtIssuer, grants } = this.options;
    const ways = [
      ...(grants.everGranted ? [`access keys (${grants.keys().length} granted)`] : []),
      ...(jwt ? [`JWT from ${jwtIssuer ?? 'the identity provider'}`] : []),
      ...(apiToken !== undefined ? ['the API token'] : []),
    ];
    return ways.length === 0 ? 'no authentication' : ways.join(', ');
  }

  /** Calls `listener` when the key `keyId` is revoked (here or on another instance). */
  onRevoked(keyId: string, listener: () => void): () => void {
    return this.options.grants.onRevoked((revoked) => {
      if (revoked === keyId) listener();
    });
  }
}
