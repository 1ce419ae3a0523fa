/** `memledger serve` starts the HTTP app on the store the global options name, and stops on SIGTERM. */
import { jest } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, runCli, sampleEvents, tempWorkspace, writeJsonl } from './cli-harness.js';

jest.setTimeout(180_000);

const root = join(import.meta.dirname, '..', '..');

const workspace = tempWorkspace();
beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('memledger serve', () => {
  it('serves the memories of --db on --port and exits cleanly on SIGTERM', async () => {
    const { db, dir } = workspace;
    const imported = await runCli([
      '--db',
      db,
      'import',
      writeJsonl(join(dir, 's.jsonl'), sampleEvents()),
    ]);
    expect(imported.code).toBe(0);

    const env = { ...process.env };
    delete env.EVENTSTORE_URL;
    delete env.MEMLEDGER_API_TOKEN;
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin', 'memledger.js'),
        '--db',
        db,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /memledger listening on (http:\/\/\S+) \(store: SQLite /.exec(out);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const response = await fetch(`${url}/api/memories`);
      expect(response.status).toBe(200);
      expect(JSON.stringify(await response.json())).toContain('default');
    } finally {
      child.kill('SIGTERM');
    }
    // Nest's shutdown hook closes the app, then re-raises the signal to end the process.
    const { code, signal } = await exited;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
  });

  it('rejects a port out of range as a usage error', async () => {
    const run = await runCli(['serve', '--port', '70000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("option '--port <port>' argument '70000' is invalid");
  });

  it('says in one line which port is busy and how to choose another, for serve and npm start', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const serve = await runCli(['--db', workspace.db, 'serve', '--port', String(port)]);
      expect(serve.code).toBe(1);
      expect(serve.stderr.trim().split('\n')).toEqual([
        `error [EADDRINUSE]: Port ${port} on 127.0.0.1 is already in use; set PORT (or memledger serve --port) to another port, or 0 for any free one.`,
      ]);
      // npm start runs dist/bundle/main.js with the environment's PORT.
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        MEMLEDGER_DB: workspace.db,
      };
      delete env.EVENTSTORE_URL;
      const start = await promisify(execFile)(process.execPath, [join(root, 'dist', 'bundle', 'main.js')], {
        cwd: root,
        env,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(start.code).toBe(1);
      expect(start.stderr.trim().split('\n')).toEqual([
        `memledger: [EADDRINUSE] Port ${port} on 127.0.0.1 is already in use; set PORT (or memledger serve --port) to another port, or 0 for any free one.`,
      ]);
    } finally {
      busy.close();
    }
  });
});
