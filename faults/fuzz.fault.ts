/**
 * Fuzzed requests against a server child on a fresh SQLite file or EventStoreDB (the in-process
 * test server, faults/fault-stores.ts), cases from faults/fuzz-cases.ts: no
 * response >= 500, no request left unanswered (a hang: no answer in 10 s; the server's own
 * timeouts are 2-3 s here), every error body JSON with a `code`, and no write by a rejected
 * request: after the run every stored event carries the marker of a request that got a 2xx.
 * Requests carry random credentials (faults/fuzz-access.ts: keys of random grants, a revoked
 * one, one never granted, the token): no answer may reach past its credential's grant.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { faultStore, type FaultStoreKind } from './fault-stores.js';
import { fuzzCase, type FuzzCase } from './fuzz-cases.js';
import { accessLeak, FUZZ_TOKEN, grantFuzzKeys, type FuzzCredential } from './fuzz-access.js';
import {
  seededRandom,
  startServerChild,
  stopServerChild,
  tempDir,
  type FaultResult,
} from './support.js';

const HANG_MS = 10_000;
const CONCURRENCY = 8;

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

function sendHttp(base: URL, fuzz: Extract<FuzzCase, { kind: 'http' }>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: base.port,
        method: fuzz.method,
        path: fuzz.path,
        // Node frames no body of GET, HEAD, DELETE or OPTIONS by itself: unframed bytes would
        // reach the server as a second request (raw cases send such bytes on purpose).
        headers:
          fuzz.body === undefined
            ? fuzz.headers
            : { ...fuzz.headers, 'content-length': String(fuzz.body.length) },
        timeout: HANG_MS,
        // A fresh connection each: a reused keep-alive socket the server is closing would
        // count as "no answer" through no fault of the server.
        agent: false,
      },
      (response) => {
        const contentType = response.headers['content-type'] ?? '';
        // A stream answers and stays open: its headers are the answer.
        if (contentType.startsWith('text/event-stream')) {
          req.destroy();
          resolve({ status: response.statusCode ?? 0, contentType, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('hang')));
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (eol < 0 || !(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

function sendRaw(base: URL, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port: Number(base.port) }, () =>
      socket.write(bytes),
    );
    socket.setTimeout(HANG_MS, () => socket.destroy(new Error('hang')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, Math.max(0, split)).toLowerCase();
      const status = Number(/^http\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const body = text.slice(split + 4);
      resolve({
        status,
        contentType: /content-type: ([^\r\n]*)/.exec(head)?.[1] ?? '',
        body: head.includes('transfer-encoding: chunked') ? dechunk(body) : body,
      });
    });
  });
}

/**
 * The case with a credential: most carry one of `credentials` (as a bearer header, or on the
 * stream as `?access_token=`), some none; a case with its own odd Authorization header keeps it
 * and counts as carrying no valid credential.
 */
function withCredential(
  fuzz: FuzzCase,
  credentials: readonly FuzzCredential[],
  random: () => number,
): { fuzz: FuzzCase; credential: FuzzCredential | undefined } {
  if (fuzz.kind !== 'http' || 'authorization' in fuzz.headers || random() < 0.1) {
    return { fuzz, credential: undefined };
  }
  // Half the requests carry the key with every right on `fuzz` (the first), so the writes that
  // should succeed still do; the rest any credential, whatever it may reach.
  const credential =
    random() < 0.5 ? credentials[0]! : credentials[Math.floor(random() * credentials.length)]!;
  if (fuzz.path.includes('/events/stream') && random() < 0.5) {
    const join = fuzz.path.includes('?') ? '&' : '?';
    return {
      fuzz: {
        ...fuzz,
        path: `${fuzz.path}${join}access_token=${encodeURIComponent(credential.secret)}`,
      },
      credential,
    };
  }
  return {
    fuzz: { ...fuzz, headers: { ...fuzz.headers, authorization: `Bearer ${credential.secret}` } },
    credential,
  };
}

/** Whether an error answer is JSON with a string `code`. */
function hasErrorCode(answer: Answer): boolean {
  try {
    const parsed = JSON.parse(answer.body) as { code?: unknown } | null;
    return typeof parsed?.code === 'string';
  } catch {
    return false;
  }
}

/** `count` fuzzed requests at 8 concurrent connections. */
export async function fuzzRequests(
  count: number,
  kind: FaultStoreKind = 'sqlite',
  seed = 4,
): Promise<FaultResult> {
  const random = seededRandom(seed);
  const temp = tempDir(`fuzz-${kind}`);
  const fault = await faultStore(kind, temp.dir);
  const credentials = await grantFuzzKeys(fault.serverConfig().store!, random);
  const server = await startServerChild({
    ...fault.serverConfig(),
    apiToken: FUZZ_TOKEN,
    headersTimeoutMs: 2000,
    requestTimeoutMs: 3000,
    idleTimeoutMs: 3000,
  });
  const base = new URL(server.url);
  const statusOf = new Map<number, number>();
  const storedIds: string[] = [];
  const acceptedIds = new Set<string>();
  const statuses = new Map<number, number>();
  const examples: string[] = [];
  let serverErrors = 0;
  let hangs = 0;
  let noStatus = 0;
  let errorBodiesWithoutCode = 0;
  let leaks = 0;
  let next = 0;
  const note = (what: string, fuzz: FuzzCase, answer?: Answer) => {
    if (examples.length < 10) {
      const request =
        fuzz.kind === 'raw'
          ? JSON.stringify(fuzz.bytes.toString('utf8').slice(0, 200))
          : `${fuzz.method} ${fuzz.path.slice(0, 200)} ${JSON.stringify(fuzz.headers)}`;
      examples.push(
        `${what}: ${request} -> ${answer ? `${answer.status} ${answer.body.slice(0, 200)}` : 'no answer'}`,
      );
    }
  };
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const { fuzz, credential } = withCredential(
        fuzzCase(i, random, storedIds),
        credentials,
        random,
      );
      let answer: Answer;
      try {
        answer = fuzz.kind === 'raw' ? await sendRaw(base, fuzz.bytes) : await sendHttp(base, fuzz);
      } catch (error) {
        const hang = error instanceof Error && error.message === 'hang';
        if (hang) hangs += 1;
        else noStatus += 1;
        note(hang ? 'hang' : `no answer (${String(error)})`, fuzz);
        continue;
      }
      statusOf.set(i, answer.status);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500) {
        serverErrors += 1;
        note('5xx', fuzz, answer);
      }
      if (answer.status === 0) {
        noStatus += 1;
        note('no status line', fuzz, answer);
      }
      const bodyExpected = !(fuzz.kind === 'http' && fuzz.method === 'HEAD');
      if (answer.status >= 400 && bodyExpected && !hasErrorCode(answer)) {
        errorBodiesWithoutCode += 1;
        note('error body without code', fuzz, answer);
      }
      const leak =
        fuzz.kind === 'http' ? accessLeak(fuzz.method, fuzz.path, credential, answer) : undefined;
      if (leak !== undefined) {
        leaks += 1;
        note(`leak (${leak})`, fuzz, answer);
      }
      if (answer.status >= 200 && answer.status < 300) {
        for (const [, id] of answer.body.matchAll(/"id":"([0-9a-fA-F-]{36})"/g))
          acceptedIds.add(id!);
        const id = /"id":"([0-9a-f-]{36})"/.exec(answer.body)?.[1];
        if (answer.status === 201 && id) storedIds.push(id);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await stopServerChild(server);
  }

  let writesByRejected = 0;
  let untraceable = 0;
  let events = 0;
  const store = fault.open();
  try {
    for (const memoryId of await store.memoryIds()) {
      for await (const event of store.log(memoryId).read()) {
        events += 1;
        // Written by an accepted request: its id was answered with a 2xx, or it carries the
        // marker of a request that got one.
        if (acceptedIds.has(event.id)) continue;
        const marker = /fz(\d+)x/.exec(JSON.stringify(event))?.[1];
        const status = marker === undefined ? undefined : statusOf.get(Number(marker));
        if (status === undefined) untraceable += 1;
        else if (status < 200 || status >= 300) writesByRejected += 1;
        else continue;
        if (examples.length < 10) {
          examples.push(`write by a rejected request: ${JSON.stringify(event).slice(0, 200)}`);
        }
      }
    }
  } finally {
    await store.close();
    await fault.close();
    temp.remove();
  }
  const passed =
    serverErrors === 0 &&
    hangs === 0 &&
    noStatus === 0 &&
    errorBodiesWithoutCode === 0 &&
    writesByRejected === 0 &&
    untraceable === 0 &&
    leaks === 0;
  return {
    name: kind === 'sqlite' ? 'fuzz' : 'fuzz-esdb',
    size: `${count} requests`,
    target:
      "0 responses >= 500, 0 hangs, 0 writes by a rejected request, every error body JSON with a code, 0 answers past a credential's grant",
    passed,
    summary: `${serverErrors} >= 500, ${hangs} hangs, ${noStatus} without a status, ${writesByRejected + untraceable} writes by rejected requests, ${errorBodiesWithoutCode} error bodies without a code, ${leaks} leaks (${credentials.length} credentials); ${events} events written by 2xx requests`,
    figures: {
      requests: count,
      serverErrors,
      hangs,
      noStatus,
      errorBodiesWithoutCode,
      leaks,
      credentials: credentials.length,
      writesByRejected,
      untraceableWrites: untraceable,
      eventsStored: events,
      statuses: JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b))),
      examples: examples.join('\n'),
    },
  };
}
