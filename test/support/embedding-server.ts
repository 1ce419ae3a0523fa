/**
 * A loopback embedding server for tests, speaking the two documented APIs: OpenAI's
 * `POST /v1/embeddings` (`{ model, input, encoding_format }` -> `{ object: 'list', data: [{
 * object: 'embedding', index, embedding }], model, usage }`) and Ollama's `POST /api/embed`
 * (`{ model, input }` -> `{ model, embeddings }`). Vectors come from the hashing embedder. Each
 * request takes the next scripted behaviour (then `ok` for ever): a status with headers, a hang,
 * vectors of the wrong length, or a body that is not JSON. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashingVector } from './hashing-embedder.js';

/** What the server does with one request. */
export type Behaviour =
  | 'ok'
  | 'hang'
  | 'not-json'
  | { readonly dimensions: number }
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string };

/** One request as the server saw it. */
export interface SeenRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: {
    model?: unknown;
    input?: unknown;
    dimensions?: unknown;
    encoding_format?: unknown;
  };
}

/** A running loopback embedding server. */
export interface EmbeddingServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly requests: SeenRequest[];
  /** Behaviours for the next requests, in order. */
  script(...behaviours: Behaviour[]): void;
  close(): Promise<void>;
}

/** Starts a server answering vectors of `dimensions` on port 0 of 127.0.0.1. */
export async function startEmbeddingServer(dimensions: number): Promise<EmbeddingServer> {
  const requests: SeenRequest[] = [];
  const queue: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as SeenRequest['body'];
      requests.push({
        at: Date.now(),
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body,
      });
      answer(req.url!, body, queue.shift() ?? 'ok', res);
    });
  });
  const answer = (
    path: string,
    body: SeenRequest['body'],
    behaviour: Behaviour,
    res: ServerResponse,
  ) => {
    if (behaviour === 'hang') {
      hanging.add(res);
      return;
    }
    if (behaviour === 'not-json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>proxy</html>');
      return;
    }
    if (behaviour !== 'ok' && 'status' in behaviour) {
      res.writeHead(behaviour.status, behaviour.headers ?? {}).end(behaviour.body ?? '');
      return;
    }
    const size = behaviour === 'ok' ? dimensions : behaviour.dimensions;
    const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
    const vectors = input.map((text) => Array.from(hashingVector(text, size)));
    const json = path.startsWith('/api/embed')
      ? { model: body.model, embeddings: vectors }
      : {
          object: 'list',
          // Listed in reverse: a client must order by `index`, as the API documents.
          data: vectors
            .map((embedding, index) => ({ object: 'embedding', index, embedding }))
            .reverse(),
          model: body.model,
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    script: (...behaviours) => void queue.push(...behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
