/**
 * A stand-in for the memledger server's verifiable-log endpoints, on loopback: the checkpoint
 * note and consistency proofs of a real tree, signed by the production signer. A test switches
 * what it serves (another tree, another key, an extra note line) to play a dishonest operator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signCheckpoint } from '../../src/tlog/checkpoint-signing.js';
import type { InMemoryTree } from '../../src/tlog/in-memory-tree.js';
import type { NoteSigner } from '../../src/tlog/note-signer.js';

/** What the fake server serves for its one memory. */
export interface Served {
  tree: InMemoryTree;
  key: NoteSigner;
  size: number;
  memory: string;
  /** Lines added to the note (witness cosignatures). */
  extraLines: string[];
  /** Replaces the note's origin when set (a checkpoint of another memory). */
  origin?: string;
  /** Replaces the proof JSON when set. */
  proofOverride?: string;
}

/** The served note of `served`. */
export function servedNote(served: Served): string {
  const note = signCheckpoint(served.key, {
    origin: served.origin ?? `${served.key.name}/${served.memory}`,
    head: { size: served.size, root: served.tree.root(served.size) },
    last: null,
    proof: [],
  });
  return note + served.extraLines.map((line) => `${line}\n`).join('');
}

/** Starts the fake server; `served` may be changed between requests. */
export async function startFakeMemledger(
  served: Served,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    const base = `/api/memories/${served.memory}`;
    if (url.pathname === '/api/log-key') return send(200, 'text/plain', `${served.key.vkey}\n`);
    if (url.pathname === `${base}/checkpoint`) return send(200, 'text/plain', servedNote(served));
    if (url.pathname === `${base}/proofs/consistency`) {
      const from = Number(url.searchParams.get('from'));
      const to = Number(url.searchParams.get('to'));
      const path = served.tree.consistencyPath(from, to).map((hash) => hash.toString('base64'));
      return send(
        200,
        'application/json',
        served.proofOverride ?? JSON.stringify({ from, to, path }),
      );
    }
    return send(404, 'application/json', '{"code":"ROUTE_NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
