/**
 * Access key secrets: `mlk_` and 256 random bits in base64url, a prefix secret scanners can
 * recognize in a leaked log or repository. Only the SHA-256 digest of a secret is ever stored.
 *
 * A fast hash is right here: a password hash (bcrypt, scrypt) slows down guessing a secret of low
 * entropy, but a 256-bit random secret cannot be guessed at any speed, and its digest must be
 * checked on every request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** What every access key secret starts with. */
export const KEY_SECRET_PREFIX = 'mlk_';

/** A key secret: the prefix and 43 base64url characters (256 bits). */
const SECRET_SHAPE = /^mlk_[A-Za-z0-9_-]{43}$/;

/** A new secret: {@link KEY_SECRET_PREFIX} and 256 random bits, base64url. */
export function newKeySecret(): string {
  return `${KEY_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * A new key id: 96 random bits, base64url (16 characters); not secret, named in `key:<id>`. Never
 * starting with `-`, which a command line reads as an option (`memledger access revoke <id>`):
 * one id in 64 did, and is drawn again.
 */
export function newKeyId(): string {
  let id: string;
  do id = randomBytes(12).toString('base64url');
  while (id.startsWith('-'));
  return id;
}

/** True when `text` has the shape of a key secret (the prefix and 43 base64url characters). */
export function looksLikeKeySecret(text: string): boolean {
  return SECRET_SHAPE.test(text);
}

/** The SHA-256 digest of a secret, lowercase hex: what the grant store keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** True when two hex digests are equal, compared in constant time. */
export function digestsMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** True when `given` equals `expected` (a shared token), compared in constant time. */
export function tokensMatch(given: string, expected: string): boolean {
  // Equal-length digests make any two texts comparable without revealing the expected length.
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}
