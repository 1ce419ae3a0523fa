/**
 * Seeded generator of odd requests for the fuzz test: methods, paths, memory ids, query strings,
 * headers, bodies and encodings, plus raw byte requests no HTTP client would send. Every body of
 * a write carries the marker `fz<i>x` in its text, so a stored event names the request that
 * wrote it.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { v7 as uuidv7 } from 'uuid';

/** A request sent with node:http. */
export interface HttpCase {
  readonly kind: 'http';
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/** Bytes written as they are on a fresh connection. */
export interface RawCase {
  readonly kind: 'raw';
  readonly bytes: Buffer;
}

export type FuzzCase = HttpCase | RawCase;

const MEMORY_IDS = [
  'fuzz',
  'fuzz',
  'fuzz',
  'A-b_c.9',
  '.',
  '..',
  'x'.repeat(129),
  '%2e%2e',
  'fuzz%00',
  '%C3%BC',
  '',
  'fuzz%2Fmore',
  'a%20b',
  '%ff',
];
const WRITE_ROUTES = ['messages', 'documents', 'recall', 'recalls', 'deletions'];
const READ_ROUTES = [
  'state',
  'search',
  'recall-stats',
  'events',
  'export',
  'events/stream',
  'nope',
  '',
];
const ODD_PATHS = [
  '/',
  '/api',
  '/api/',
  '/api/memories',
  '/api/docs-json',
  '/index.html',
  '/../../etc/passwd',
  '//api//memories',
  '/api/memories/fuzz/messages/',
  '/%ff',
  '/%00',
  '/api/memories/fuzz/events/not-a-uuid',
  '/api/memories/fuzz/items/00000000-0000-7000-8000-000000000000/history',
  `/api/${'a/'.repeat(500)}`,
  '/api/memories/fuzz/state?upToSeq',
  '/favicon.ico',
  '/web/../package.json',
];
const QUERIES = [
  '',
  '',
  '?fromSeq=-5',
  '?upToSeq=abc',
  '?limit=0',
  '?limit=1000000000',
  '?limit=10',
  '?q=fz',
  '?limit=1&limit=2',
  '?foo=bar',
  '?upToSeq=%00',
  `?q=${'q'.repeat(5000)}`,
  '?upToSeq=-1',
  '?offset=-1',
  '?fromSeq=1e3',
  '?q=%F0%9F%98%80',
  '?q=fz&mode=semantic',
  '?q=fz&mode=hybrid',
  '?q=fz&mode=lexical',
  '?mode=vibes',
  '?limit=1.5',
  '?=',
  '?&&&',
];
const METHODS = [
  'GET',
  'GET',
  'POST',
  'POST',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'HEAD',
  'FOO',
  'PROPFIND',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  '',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  'application/merge-patch+json',
  'application/json;;;',
];
const ENCODINGS = [
  '',
  '',
  '',
  'gzip',
  'gzip-garbage',
  'br',
  'deflate',
  'compress',
  'gzip, br',
  'identity',
  'zstd',
  'GZIP',
  'br-garbage',
];

/** Picks from a list with a PRNG. */
const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;

function validBody(route: string, marker: string, ids: readonly string[], random: () => number) {
  const target = ids.length > 0 && random() < 0.7 ? pick(random, ids) : uuidv7();
  const common = random() < 0.3 ? { id: uuidv7() } : {};
  switch (route) {
    case 'messages':
      return { ...common, speaker: 'fuzzer', content: `content ${marker}` };
    case 'documents':
      return { ...common, name: `doc ${marker}`, text: `text ${marker}` };
    case 'recall':
      return {
        query: `content ${marker}`,
        ...(random() < 0.5 ? { limit: 3 } : {}),
        ...(random() < 0.5 ? { mode: pick(random, ['lexical', 'semantic', 'hybrid']) } : {}),
      };
    case 'recalls':
      return { ...common, query: `q ${marker}`, recalled: random() < 0.5 ? [target] : [] };
    default:
      return { ...common, targets: [target], reason: `reason ${marker}` };
  }
}

/** Turns a valid body into an odd one (or leaves it). */
function mutate(body: Record<string, unknown>, random: () => number): unknown {
  const keys = Object.keys(body);
  switch (Math.floor(random() * 14)) {
    case 0: {
      const { [pick(random, keys)]: _dropped, ...rest } = body;
      return rest;
    }
    case 1:
      return {
        ...body,
        [pick(random, keys)]: pick(random, [42, null, true, [], {}, '', ' ', '\u0000']),
      };
    case 2:
      return { ...body, extra: 'field' };
    case 3:
      return { ...body, [pick(random, keys)]: 'x'.repeat(200_000) };
    case 4:
      return { ...body, [pick(random, keys)]: '\ud800 lone' };
    case 5:
      return {
        ...body,
        timestamp: pick(random, [
          '2026-01-01T00:00:00',
          'yesterday',
          '2026-13-45T00:00:00Z',
          '2026-01-01T00:00:00+14:00',
        ]),
      };
    case 6: {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 3000; i++) deep = { d: deep };
      return { ...body, deep };
    }
    case 7:
      return [body];
    case 8:
      return pick(random, [null, 0, 'string', true]);
    case 9:
      return {
        ...body,
        id: pick(random, ['not-a-uuid', '', 42, '00000000-0000-0000-0000-000000000000']),
      };
    case 10:
      return {
        ...body,
        __proto__: { polluted: true },
        constructor: { prototype: { polluted: true } },
      };
    default:
      return body;
  }
}

function encodeBody(
  text: string,
  random: () => number,
): { body: Buffer; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const contentType = pick(random, CONTENT_TYPES);
  if (contentType !== '') headers['content-type'] = contentType;
  const encoding = pick(random, ENCODINGS);
  let body = Buffer.from(text, 'utf8');
  const odd = random();
  if (odd < 0.05) body = Buffer.from(text.slice(0, Math.floor(text.length / 2)), 'utf8');
  else if (odd < 0.08) body = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3]);
  else if (odd < 0.1) body = Buffer.alloc(0);
  if (encoding === 'gzip' || encoding === 'GZIP') body = gzipSync(body);
  else if (encoding === 'br') body = brotliCompressSync(body);
  else if (encoding === 'deflate') body = deflateSync(body);
  else if (encoding.endsWith('-garbage'))
    body = Buffer.concat([Buffer.from([0x1f, 0x8b, 8]), body]);
  if (encoding !== '') headers['content-encoding'] = encoding.replace('-garbage', '');
  return { body, headers };
}

const RAW_REQUESTS = [
  'GET /api/memories/fu zz/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  `GET /api/memories/${'é'}/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  `GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17_000)}\r\nConnection: close\r\n\r\n`,
  'POST /api/memories/fuzz/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  'POST /api/memories/fuzz/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\nConnection: close\r\n\r\nhello',
  'GET /api/memories HTTP/1.0\r\n\r\n',
  'GET /api/memories HTTP/1.1\nHost: x\nConnection: close\n\n',
  'GET /api/memories HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GARBAGE\r\n\r\n',
  'GET /api/memories HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nConnection: close\r\n\r\n',
  'POST /api/memories/fuzz/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{"speaker":"a"',
  'POST /api/memories/fuzz/messages HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n',
  'GET /api/memories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
  'GET http://evil.example/api/memories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
];

/** The i-th odd request; `ids` are ids the server stored so far (deletion and recall targets). */
export function fuzzCase(i: number, random: () => number, ids: readonly string[]): FuzzCase {
  if (random() < 0.06)
    return { kind: 'raw', bytes: Buffer.from(pick(random, RAW_REQUESTS), 'utf8') };
  const marker = `fz${i}x`;
  const headers: Record<string, string> = {};
  if (random() < 0.1)
    headers.accept = pick(random, ['text/event-stream', '*/*', 'application/xml', '']);
  if (random() < 0.05) headers.authorization = pick(random, ['Bearer x', 'Basic Zm9vOmJhcg==', '']);
  if (random() < 0.05) headers['last-event-id'] = pick(random, ['-1', 'abc', '99999999', '3']);
  if (random() < 0.03) headers['x-forwarded-for'] = '10.0.0.1';
  if (random() < 0.3) {
    const method = pick(random, METHODS);
    const path =
      random() < 0.5
        ? pick(random, ODD_PATHS)
        : `/api/memories/${pick(random, MEMORY_IDS)}/${pick(random, READ_ROUTES)}`;
    const hasBody = random() < 0.3;
    const encoded = hasBody ? encodeBody(`{"content":"${marker}"}`, random) : undefined;
    return {
      kind: 'http',
      method,
      path: `${path}${pick(random, QUERIES)}`,
      headers: { ...headers, ...encoded?.headers },
      ...(encoded ? { body: encoded.body } : {}),
    };
  }
  const route = pick(random, WRITE_ROUTES);
  const memoryId = random() < 0.8 ? 'fuzz' : pick(random, MEMORY_IDS);
  const method = random() < 0.9 ? 'POST' : pick(random, METHODS);
  const body = mutate(validBody(route, marker, ids, random), random);
  const text = body === undefined ? '' : JSON.stringify(body);
  const encoded = encodeBody(text, random);
  const query = random() < 0.1 ? pick(random, QUERIES) : '';
  return {
    kind: 'http',
    method,
    path: `/api/memories/${memoryId}/${route}${query}`,
    headers: { ...headers, ...encoded.headers },
    body: encoded.body,
  };
}
