/**
 * SIGTERM under load, on the real entry point (`src/main.ts` in a child process on a SQLite
 * file): appends keep arriving and event-stream clients are connected when the signal comes.
 * The process exits 0 (it exits 1 when the shutdown bound runs out), each stream ends with a
 * reconnect hint (`retry:`), and every append the server acknowledged is in the log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/sqlite.js';
import { openSse } from '../http/http-app.js';

const root = join(import.meta.dirname, '..', '..');

/** Starts `src/main.ts` on `db` and resolves with its URL once it listens. */
function startMain(
  db: string,
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      MEMLEDGER_DB: db,
      MEMLEDGER_SHUTDOWN_TIMEOUT_MS: '8000',
      EVENTSTORE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /memledger listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, exited });
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${out}`)));
  });
}

/** Appends messages one after another until a request fails; returns the acknowledged ids. */
async function appendUntilRefused(url: string, worker: number): Promise<string[]> {
  const acknowledged: string[] = [];
  for (let n = 0; ; n++) {
    try {
      const res = await fetch(`${url}/api/memories/load/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ speaker: `worker-${worker}`, content: `message ${n}` }),
      });
      if (res.status !== 201) return acknowledged;
      acknowledged.push(((await res.json()) as { id: string }).id);
    } catch {
      return acknowledged;
    }
  }
}

describe('SIGTERM', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-shutdown-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged append, ends streams with a reconnect hint and exits 0', async () => {
    const db = join(dir, 'memledger.db');
    const { child, url, exited } = await startMain(db);
    const streams = await Promise.all(
      [0, 1, 2].map(() => openSse(`${url}/api/memories/load/events/stream`)),
    );
    const raw = streams.map((stream) => {
      let text = '';
      stream.response.on('data', (chunk: string) => (text += chunk));
      return {
        text: () => text,
        ended: new Promise<void>((resolve) => stream.response.once('close', resolve)),
      };
    });
    const workers = [0, 1, 2, 3].map((worker) => appendUntilRefused(url, worker));
    // Load is under way (the streams have seen appends) when the signal comes.
    await streams[0]!.waitFor(20, 20_000);

    child.kill('SIGTERM');
    const code = await exited;
    const acknowledged = (await Promise.all(workers)).flat();
    await Promise.all(raw.map((stream) => stream.ended));

    expect(code).toBe(0);
    for (const stream of raw) {
      expect(stream.text()).toContain('retry: 1000\n: server shutting down; reconnect');
    }
    const store = openSqliteStore({ path: db });
    try {
      const stored = new Set<string>();
      for await (const event of store.log('load').read()) stored.add(event.id);
      // The streams had seen 20 appends when the signal came: at least that many were answered.
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
