import { MemoryError } from '../core/index.js';

/**
 * The URL of an API's endpoint from a base URL: `path` is appended unless the URL ends with it
 * already. `VALIDATION_FAILED` names `field` when the URL is not http(s).
 */
export function endpoint(base: string, path: string, field: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const rule = 'must be an http:// or https:// URL';
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid embeddings ${field}: ${rule} (got ${url.protocol === 'invalid:' ? 'no URL' : `a ${url.protocol} URL`}).`,
      { issues: [{ path: field, message: rule }] },
    );
  }
  const trimmed = url.pathname.replace(/\/+$/, '');
  url.pathname = trimmed.endsWith(path) ? trimmed : `${trimmed}${path}`;
  return url.toString();
}
