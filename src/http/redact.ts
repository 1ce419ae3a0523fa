/**
 * Secrets never reach a log line or an error body: the stream's `?access_token=`, an
 * `Authorization` value, an access key secret (`mlk_...`) or a JWT wherever it appears, the
 * password of a connection string (`esdb://admin:changeit@host`) and `password=`/`token=`-like
 * pairs are replaced by {@link REDACTED} before the server writes them.
 */

/** What a secret is replaced by. */
export const REDACTED = '[redacted]';

/** Names whose values are secrets in `name=value` pairs (query strings, forms) and JSON keys. */
const SECRET_NAMES = String.raw`access_token|api[_-]?token|api[_-]?key|token|password|passwd|pwd|secret|client_secret`;

const RULES: readonly (readonly [RegExp, string])[] = [
  // An access key secret anywhere (its prefix stays, so a reader knows what leaked).
  [/\bmlk_[A-Za-z0-9_-]{8,}/g, `mlk_${REDACTED}`],
  // A compact JWT anywhere: header and payload are base64url JSON (`eyJ`), then a signature.
  [/\beyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g, REDACTED],
  // `scheme://user:password@host`: the password goes, the user and host stay for diagnosis.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s@/]*@/gi, `$1${REDACTED}@`],
  // `Bearer <token>`, `Basic <credentials>` wherever they appear (a placeholder `<token>` stays).
  [/\b(Bearer|Basic)\s+[\w.~+/=-]+/gi, `$1 ${REDACTED}`],
  // `Authorization: <scheme-less value>`.
  [
    /\b(Authorization"?\s*[:=]\s*"?)(?!Bearer\b|Basic\b|\[redacted\])[^\s"',;}]+/gi,
    `$1${REDACTED}`,
  ],
  // `?access_token=x&...`, `password=x` (not prose such as "a token: send it").
  [new RegExp(String.raw`((?:^|[^\w-])(?:${SECRET_NAMES})=)[^\s&"',;}]+`, 'gi'), `$1${REDACTED}`],
  // `"password": "x"`, JSON keys, quoted.
  [
    new RegExp(String.raw`("(?:${SECRET_NAMES})"\s*:\s*)("(?:[^"\\]|\\.)*"|[^\s,}]+)`, 'gi'),
    `$1${REDACTED}`,
  ],
];

/** `text` with every secret it carries replaced by {@link REDACTED}. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
