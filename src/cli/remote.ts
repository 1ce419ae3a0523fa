/**
 * The command line against a running server (`--server <url>`, with `--key <secret>` or
 * `MEMLEDGER_KEY`): the same requests any HTTP client sends, so the server's access checks apply
 * and its refusals come back with their codes (`error [FORBIDDEN]: ...`).
 */
import type { Command } from 'commander';
import { MemoryError, type MemoryErrorCode } from '../core/index.js';
import { globalOptionsOf } from './open.js';

/** A server to talk to. */
export interface Remote {
  /** The server's base URL, without a trailing slash. */
  readonly url: string;
  /** GETs `path` (with `query`) and parses the JSON answer. */
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** POSTs `body` as JSON to `path` and parses the JSON answer. */
  post<T>(path: string, body: unknown): Promise<T>;
  /** GETs `path` and hands over the answer's body as a stream of bytes. */
  stream(path: string): Promise<ReadableStream<Uint8Array>>;
}

/** The server `--server` names, or undefined when the command works on the store itself. */
export function remoteOf(command: Command): Remote | undefined {
  const { server, key } = globalOptionsOf(command);
  const base = server?.trim();
  if (!base) return undefined;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw usage('--server', 'must be an http(s) URL such as http://127.0.0.1:3000');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usage('--server', 'must be an http(s) URL such as http://127.0.0.1:3000');
  }
  const root = url.href.replace(/\/+$/, '');
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (key?.trim()) headers.Authorization = `Bearer ${key.trim()}`;
  const send = async (path: string, init: RequestInit = {}) => {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        ...init,
        headers: { ...headers, ...init.headers },
      });
    } catch (cause) {
      throw new MemoryError('STORE_UNAVAILABLE', `The server ${root} could not be reached.`, {
        cause,
      });
    }
    if (!response.ok) throw await refusal(response);
    return response;
  };
  return {
    url: root,
    get: async <T>(path: string, query: Record<string, string | number | undefined> = {}) => {
      const defined = Object.entries(query).filter(([, value]) => value !== undefined);
      const search = defined.length
        ? `?${new URLSearchParams(defined.map(([k, v]) => [k, String(v)]))}`
        : '';
      return (await (await send(`${path}${search}`)).json()) as T;
    },
    post: async <T>(path: string, body: unknown) =>
      (await (
        await send(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as T,
    stream: async (path) => {
      const response = await send(path, { headers: { Accept: '*/*' } });
      if (response.body === null) throw new MemoryError('STORE_FAILED', 'The server sent no body.');
      return response.body;
    },
  };
}

/** The path of one memory's routes. */
export function memoryPath(memoryId: string, route: string): string {
  return `/api/memories/${encodeURIComponent(memoryId)}/${route}`;
}

/** A refused request as the error the server named (its code and message). */
async function refusal(response: Response): Promise<MemoryError> {
  let body: { code?: unknown; message?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON: the status says what happened.
  }
  const code = typeof body.code === 'string' ? body.code : `HTTP_${response.status}`;
  const message = typeof body.message === 'string' ? body.message : response.statusText;
  // The server's own codes are memledger's (or its HTTP layer's): carried as they are.
  return new MemoryError(code as MemoryErrorCode, message, {
    details: { status: response.status },
  });
}

function usage(option: string, rule: string): MemoryError {
  return new MemoryError('VALIDATION_FAILED', `Invalid ${option}: ${rule}.`, {
    issues: [{ path: option, message: rule }],
  });
}
