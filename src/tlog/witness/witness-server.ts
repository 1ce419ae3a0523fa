/**
 * The witness over HTTP (node:http): `POST /add-checkpoint` (C2SP tlog-witness) and
 * `GET /<sha256 hex of origin>/checkpoint` for monitors. Bodies are read up to a limit; any
 * other path is 404, any other method 405.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Witness, WitnessResponse } from './witness.js';

/** The largest request body read: a checkpoint with 100 signatures and 63 proof lines fits. */
export const MAX_WITNESS_BODY_BYTES = 64 * 1024;

/** A running witness server. */
export interface WitnessServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts serving `witness` on `host:port` (port 0: any free port). */
export async function startWitnessServer(
  witness: Witness,
  host: string,
  port: number,
): Promise<WitnessServer> {
  // Loaded here, not with the package: only a process that runs a witness serves HTTP with it.
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    route(witness, request)
      .then((answer) => send(response, answer))
      .catch((error: unknown) => {
        send(response, {
          status: 500,
          contentType: 'text/plain; charset=utf-8',
          body: 'Internal error.\n',
        });
        process.stderr.write(
          `witness: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function route(witness: Witness, request: IncomingMessage): Promise<WitnessResponse> {
  const path = new URL(request.url ?? '/', 'http://witness').pathname;
  const text = (status: number, body: string) => ({
    status,
    contentType: 'text/plain; charset=utf-8',
    body,
  });
  if (path === '/add-checkpoint') {
    if (request.method !== 'POST') return text(405, 'add-checkpoint takes POST.\n');
    const body = await readBody(request);
    if (body === undefined)
      return text(413, `The body is larger than ${MAX_WITNESS_BODY_BYTES} bytes.\n`);
    let decoded: string;
    try {
      decoded = utf8.decode(body);
    } catch {
      return text(400, 'The body is not valid UTF-8.\n');
    }
    return witness.addCheckpoint(decoded);
  }
  const match = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
  if (match !== null) {
    if (request.method !== 'GET') return text(405, 'checkpoint takes GET.\n');
    return witness.checkpointOf(match[1]!);
  }
  return text(404, 'Not found.\n');
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body's bytes, or undefined when it is larger than the limit. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    if (length > MAX_WITNESS_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(response: ServerResponse, answer: WitnessResponse): void {
  if (response.headersSent) return;
  response.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
  });
  response.end(answer.body);
}
