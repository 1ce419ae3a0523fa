/**
 * One JSON POST to an embedding server, with a timeout per attempt and retries: a refused
 * connection, a timeout, 408, 429 and 5xx are tried again after `Retry-After` (or
 * `retry-after-ms`) when the server sends one, else after an exponential, jittered pause. Every
 * other answer fails at once. Nothing memledger sent (texts, API key) is put in an error; the
 * server's own explanation is quoted, cut at 200 characters.
 */
import { MemoryError } from '../core/index.js';

/** How an HTTP provider talks to its server. @see {@link HttpOptions} for the defaults. */
export interface HttpOptions {
  /** Milliseconds one attempt may take (connect, send, answer). @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** Attempts after the first one, on a retryable failure. @defaultValue 3 */
  readonly retries?: number;
  /** The first pause between attempts; it doubles each time (with jitter). @defaultValue 250 */
  readonly retryDelayMs?: number;
  /**
   * The longest pause before another attempt; a server asking for a longer one (`Retry-After`)
   * fails the call at once with `EMBEDDER_UNAVAILABLE` and its `retryAfterMs`. @defaultValue 10000
   */
  readonly maxRetryDelayMs?: number;
}

/** One request: where, what, and who is asking. */
export interface JsonPost extends HttpOptions {
  readonly provider: string;
  readonly model: string;
  readonly url: string;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
}

/** Statuses that say "not now" rather than "not this". */
const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/** The parsed JSON answer of `post.url`, after retries. */
export async function postJson(post: JsonPost): Promise<unknown> {
  const retries = post.retries ?? 3;
  const where = safeUrl(post.url);
  let failure: MemoryError | undefined;
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptPost(post, where);
    if (outcome.kind === 'answer') return outcome.json;
    failure = outcome.error;
    if (attempt >= retries) break;
    const pause = outcome.retryAfterMs ?? backoff(post, attempt);
    if (pause > (post.maxRetryDelayMs ?? 10_000)) {
      throw withDetails(failure, { retryAfterMs: pause, attempts: attempt + 1 });
    }
    await sleep(pause, post.signal);
  }
  throw withDetails(failure, { attempts: retries + 1 });
}

type Outcome =
  | { readonly kind: 'answer'; readonly json: unknown }
  | { readonly kind: 'retry'; readonly error: MemoryError; readonly retryAfterMs?: number };

async function attemptPost(post: JsonPost, where: string): Promise<Outcome> {
  const timeoutMs = post.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = post.signal ? AbortSignal.any([post.signal, timeout]) : timeout;
  const facts = { provider: post.provider, model: post.model, url: where };
  let response: Response;
  let text: string;
  try {
    response = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...post.headers },
      body: JSON.stringify(post.body),
      signal,
    });
    text = await response.text();
  } catch (cause) {
    if (post.signal?.aborted) throw cause;
    const why = timeout.aborted
      ? `did not answer within ${timeoutMs} ms`
      : `could not be reached (${(cause as Error).message})`;
    const error = new MemoryError(
      'EMBEDDER_UNAVAILABLE',
      `Embedder ${post.provider} at ${where} ${why}.`,
      { details: facts, cause },
    );
    return { kind: 'retry', error };
  }
  if (response.ok) return { kind: 'answer', json: parseJson(text, post, where) };
  const said = snippet(text);
  if (!RETRYABLE.has(response.status)) {
    throw new MemoryError(
      'EMBEDDER_FAILED',
      `Embedder ${post.provider} at ${where} refused the request with HTTP ${response.status}${said}.`,
      { details: { ...facts, status: response.status } },
    );
  }
  const error = new MemoryError(
    'EMBEDDER_UNAVAILABLE',
    `Embedder ${post.provider} at ${where} answered HTTP ${response.status}${said}.`,
    { details: { ...facts, status: response.status } },
  );
  const retryAfterMs = retryAfter(response.headers);
  return retryAfterMs === undefined
    ? { kind: 'retry', error }
    : { kind: 'retry', error, retryAfterMs };
}

function parseJson(text: string, post: JsonPost, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new MemoryError(
      'EMBEDDER_FAILED',
      `Embedder ${post.provider} at ${where} answered something that is not JSON${snippet(text)}.`,
      { details: { provider: post.provider, model: post.model, url: where }, cause },
    );
  }
}

/** `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date; undefined if absent. */
export function retryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoff(options: HttpOptions, attempt: number): number {
  const base = (options.retryDelayMs ?? 250) * 2 ** attempt;
  const capped = Math.min(base, options.maxRetryDelayMs ?? 10_000);
  return capped / 2 + (Math.random() * capped) / 2;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** The URL without credentials, query or fragment: safe to put in a message or a log. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** The start of a server's answer, for the message (servers explain refusals there). */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return flat === '' ? '' : `: ${flat}`;
}

function withDetails(error: MemoryError, details: Record<string, unknown>): MemoryError {
  return new MemoryError(error.code, error.message, {
    details: { ...error.details, ...details },
    cause: error.cause,
  });
}
