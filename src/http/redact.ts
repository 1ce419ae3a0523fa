/**
 * Secrets never reach a log line or an error body: the stream's `?access_token=`, an
 * `Authorization` value, the password of a connection string (`esdb://admin:changeit@host`) and
 * `password=`/`token=`-like pairs are replaced by {@link REDACTED} before the server writes them.
 */

/** What a secret is replaced by. */
export const REDACTED = '[redacted]';

/** Names whose values are secrets, in query strings, JSON, `name=value` and `name: value`. */
const SECRET_NAMES = String.raw`access_token|api[_-]?token|api[_-]?key|token|password|passwd|pwd|secret|client_secret|authorization`;

const RULES: readonly (readonly [RegExp, string])[] = [
  // `scheme://user:password@host`: the password goes, the user and host stay for diagnosis.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s@/]*@/gi, `$1${REDACTED}@`],
  // `Bearer <token>`, `Basic <credentials>` wherever they appear.
  [/\b(Bearer|Basic)\s+[\w.~+/=-]+/gi, `$1 ${REDACTED}`],
  // `"password": "x"`, `token=x`, `Authorization: x`, `?access_token=x&...` (quoted or not).
  [
    new RegExp(
      String.raw`((?:^|[^\w-])"?(?:${SECRET_NAMES})"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s&"',;}]+)`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
];

/** `text` with every secret it carries replaced by {@link REDACTED}. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  // A value the second rule already replaced is not replaced again.
  return out.replaceAll(`${REDACTED} ${REDACTED}`, REDACTED);
}
