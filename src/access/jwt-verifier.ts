/**
 * The other way in: a JWT from an identity provider, verified with `jose` against the provider's
 * JWKS (fetched on first use, fetched again for a key id it does not hold: key rotation). `sub`
 * is the principal; the memories and rights come from one claim (`memledger` by default):
 * `{ "memories": [...], "rights": [...] }`, or an array of such grants.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import { MemoryError, PrincipalVia, RecordedBy } from '../core/index.js';
import { MemoryPatterns } from './memory-pattern.js';
import type { Grant, Principal } from './principal.js';
import { Rights } from './rights.js';

type Via = NonNullable<RecordedBy>['via'];

/** How JWTs are verified. */
export interface JwtConfig {
  /** Where the provider publishes its keys (`MEMLEDGER_JWT_JWKS_URL`). */
  readonly jwksUrl: string;
  /** The `iss` every token must carry (`MEMLEDGER_JWT_ISSUER`). */
  readonly issuer: string;
  /** The `aud` every token must carry (`MEMLEDGER_JWT_AUDIENCE`). */
  readonly audience: string;
  /** The claim holding the grants (`MEMLEDGER_JWT_CLAIM`). @defaultValue 'memledger' */
  readonly claim?: string;
  /** Seconds of clock skew tolerated on `exp` and `nbf`. @defaultValue 30 */
  readonly clockToleranceSec?: number;
  /**
   * Milliseconds after a JWKS fetch before a token with an unknown key id makes it fetch again.
   * @defaultValue 30000
   */
  readonly refetchCooldownMs?: number;
}

/**
 * How long a verified token is taken on its word (its signature is not checked again): at most
 * this long, and never past its `exp`. A key the provider withdraws stops working within it.
 */
const VERIFIED_TTL_MS = 60_000;
/** Verified tokens remembered at most (the oldest is forgotten first). */
const VERIFIED_MAX = 1000;

/** Verifies a JWT and gives its principal; `UNAUTHORIZED` saying why it is refused. */
export type JwtVerifier = (token: string) => Promise<Principal>;

/** The shape of a JWT: three base64url parts. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when `text` has the shape of a compact JWT. */
export function looksLikeJwt(text: string): boolean {
  return JWT_SHAPE.test(text);
}

const GrantClaim = z.strictObject({ memories: MemoryPatterns, rights: Rights });
const GrantsClaim = z.union([GrantClaim, z.array(GrantClaim).min(1).max(100)]);

/** Signature algorithms accepted: asymmetric only, so a public key can never act as a secret. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** A verifier for `config`; `VALIDATION_FAILED` for a configuration that cannot work. */
export function jwtVerifier(config: JwtConfig): JwtVerifier {
  const via = `jwt:${config.issuer}`;
  if (!PrincipalVia.safeParse(via).success) {
    throw invalidConfig('MEMLEDGER_JWT_ISSUER', 'must be 1 to 256 characters without spaces');
  }
  let url: URL;
  try {
    url = new URL(config.jwksUrl);
  } catch {
    throw invalidConfig('MEMLEDGER_JWT_JWKS_URL', 'must be an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidConfig('MEMLEDGER_JWT_JWKS_URL', 'must be an http(s) URL');
  }
  if (config.audience.trim() === '') throw invalidConfig('MEMLEDGER_JWT_AUDIENCE', 'must be set');
  const keys = createRemoteJWKSet(url, { cooldownDuration: config.refetchCooldownMs ?? 30_000 });
  const claim = config.claim ?? 'memledger';
  // A signature check costs more than the rest of a request: each token is checked once a minute.
  const verified = new Map<string, { readonly principal: Principal; readonly until: number }>();
  return async (token) => {
    const now = Date.now();
    const known = verified.get(token);
    if (known !== undefined && known.until > now) return known.principal;
    verified.delete(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: ALGORITHMS,
        clockTolerance: config.clockToleranceSec ?? 30,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw refused(reasonOf(error));
    }
    const principal = principalOf(payload, claim, via);
    verified.set(token, {
      principal,
      until: Math.min(principal.expiresAt ?? now, now + VERIFIED_TTL_MS),
    });
    if (verified.size > VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    return principal;
  };
}

/** The principal a verified payload names, with the grants of its claim. */
function principalOf(payload: JWTPayload, claim: string, via: Via): Principal {
  const name = RecordedBy.unwrap().shape.principal.safeParse(payload.sub);
  if (!name.success) throw refused('its sub is not a usable principal name');
  const grants = GrantsClaim.safeParse(payload[claim]);
  if (!grants.success) {
    throw refused(`its ${claim} claim is not { memories, rights } or an array of them`);
  }
  const list: Grant[] = Array.isArray(grants.data) ? grants.data : [grants.data];
  return {
    recordedBy: { principal: name.data, via },
    grants: list,
    ...(payload.exp === undefined ? {} : { expiresAt: payload.exp * 1000 }),
  };
}

/** Why jose refused a token, in words that never repeat the token. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `its ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'not the one this server accepts'}`;
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'no key of the identity provider matches its key id';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'its signature does not verify';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its signature algorithm is not accepted';
  if (error instanceof errors.JWKSTimeout)
    return "the identity provider's keys could not be fetched in time";
  if (error instanceof errors.JOSEError) return `it is not a valid JWT (${error.code})`;
  return "the identity provider's keys could not be fetched";
}

function refused(reason: string): MemoryError {
  return new MemoryError('UNAUTHORIZED', `The JWT was refused: ${reason}.`);
}

function invalidConfig(name: string, rule: string): MemoryError {
  return new MemoryError('VALIDATION_FAILED', `Invalid ${name}: ${rule}.`, {
    issues: [{ path: name, message: rule }],
  });
}
