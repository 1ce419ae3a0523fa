/**
 * The verifiable log's commands, as the real binary: `keygen` (key file 0600, never replaced,
 * verifier key on stdout), `witness` (real HTTP; restarts with its state; two witness
 * processes sharing one state file never roll a log back), `checkpoint` (the monitor's exit
 * codes against a loopback server signing a real tree).
 */
import { jest } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseVerifierKey, verifyCheckpoint } from '../../src/verify/index.js';
import { startFakeMemledger } from '../tlog/fake-memledger.js';
import { testLogs } from '../tlog/witness-fixture.js';
import { buildOnce, runCli, tempWorkspace } from './cli-harness.js';

jest.setTimeout(180_000);

const root = join(import.meta.dirname, '..', '..');
const workspace = tempWorkspace();
beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

/** Starts `memledger witness ...` and resolves with its URL once it listens. */
async function startWitness(
  args: string[],
): Promise<{ url: string; child: ChildProcessWithoutNullStreams; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'memledger.js'), 'witness', '--port', '0', ...args],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const closed = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void closed.then((code) => reject(new Error(`witness exited with ${code}: ${out}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      expect(await closed).toBe(0);
    },
  };
}

describe('memledger keygen', () => {
  it('writes a 0600 key file and prints its verifier key, and never replaces a file', async () => {
    const out = join(workspace.dir, 'log.key');
    const run = await runCli(['keygen', '--out', out, '--name', 'log.example']);
    expect(run.code).toBe(0);
    const key = await parseVerifierKey(run.stdout.trim(), 0x01);
    expect(key.name).toBe('log.example');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toMatch(/^PRIVATE\+KEY\+log\.example\+[0-9a-f]{8}\+\S+\n$/);
    const again = await runCli(['keygen', '--out', out, '--name', 'log.example']);
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toMatch(/^error \[LOG_KEY_EXISTS\]: Key file .* already exists/);
  });

  it('takes the name from MEMLEDGER_LOG_NAME, and makes witness keys', async () => {
    const run = await runCli(['keygen', '--out', join(workspace.dir, 'named.key')], {
      MEMLEDGER_LOG_NAME: 'acme.example/memory',
    });
    expect(run.stdout).toMatch(/^acme\.example\/memory\+/);
    const witness = await runCli([
      'keygen',
      '--witness',
      '--out',
      join(workspace.dir, 'w.key'),
      '--name',
      'w.example',
    ]);
    expect((await parseVerifierKey(witness.stdout.trim(), 0x04)).name).toBe('w.example');
    const bad = await runCli([
      'keygen',
      '--out',
      join(workspace.dir, 'bad.key'),
      '--name',
      'has space',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('LOG_KEY_MALFORMED');
    expect(existsSync(join(workspace.dir, 'bad.key'))).toBe(false);
  });
});

describe('memledger witness', () => {
  const { log, forked } = testLogs('log.example', 'default');
  const post = async (url: string, body: string) => {
    const response = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
    return { status: response.status, text: await response.text() };
  };

  it('cosigns consistent checkpoints, refuses a fork, and keeps its state across a restart', async () => {
    const keyFile = join(workspace.dir, 'witness1.key');
    const vkey = (
      await runCli(['keygen', '--witness', '--out', keyFile, '--name', 'w1.example'])
    ).stdout.trim();
    const args = [
      '--key-file',
      keyFile,
      '--state',
      join(workspace.dir, 'w1.db'),
      '--log',
      log.key.vkey,
    ];
    const first = await startWitness(args);
    try {
      const cosigned = await post(first.url, log.body(0, 25));
      expect(cosigned.status).toBe(200);
      const trust = {
        log: await parseVerifierKey(log.key.vkey),
        witnesses: [await parseVerifierKey(vkey)],
      };
      expect((await verifyCheckpoint(`${log.note(25)}${cosigned.text}`, trust)).size).toBe(25);
    } finally {
      await first.stop();
    }
    const second = await startWitness(args);
    try {
      expect(await post(second.url, log.body(0, 30))).toEqual({ status: 409, text: '25\n' });
      const fork = await post(second.url, forked.body(25, 30));
      expect(fork.status).toBe(422);
      expect(fork.text).toContain('Inconsistent with the checkpoint cosigned at size 25');
      expect((await post(second.url, log.body(25, 30))).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('never rolls a log back when two witness processes share one state file', async () => {
    const keyFile = join(workspace.dir, 'witness2.key');
    await runCli(['keygen', '--witness', '--out', keyFile, '--name', 'w2.example']);
    const args = [
      '--key-file',
      keyFile,
      '--state',
      join(workspace.dir, 'w2.db'),
      '--log',
      log.key.vkey,
    ];
    const [a, b] = [await startWitness(args), await startWitness(args)];
    try {
      expect((await post(a.url, log.body(0, 10))).status).toBe(200);
      const sizes = [20, 30, 40, 50, 60, 70];
      const answers = await Promise.all(
        sizes.map((size, i) => post(i % 2 === 0 ? a.url : b.url, log.body(10, size))),
      );
      const winners = answers.filter((answer) => answer.status === 200);
      expect(winners).toHaveLength(1);
      const won = sizes[answers.indexOf(winners[0]!)]!;
      expect(
        answers.filter((answer) => answer.status === 409).map((answer) => answer.text),
      ).toEqual(Array(5).fill(`${won}\n`));
      expect((await post(b.url, log.body(0, 99))).text).toBe(`${won}\n`);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('refuses to start with a log key as its key, naming the problem', async () => {
    const keyFile = join(workspace.dir, 'not-a-witness.key');
    await runCli(['keygen', '--out', keyFile, '--name', 'log.example']);
    const run = await runCli([
      'witness',
      '--key-file',
      keyFile,
      '--state',
      join(workspace.dir, 'x.db'),
      '--log',
      log.key.vkey,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[LOG_KEY_MALFORMED\]: .*is a log key, not a witness key/);
  });
});

describe('memledger checkpoint', () => {
  const { log, forked } = testLogs('log.example', 'team-a');

  it('exits 0 and saves, then exits 2 keeping the evidence when the history was rewritten', async () => {
    const served = {
      tree: log.tree,
      key: log.key,
      size: 20,
      memory: 'team-a',
      extraLines: [] as string[],
    };
    const server = await startFakeMemledger(served);
    const state = join(workspace.dir, 'monitor', 'team-a.note');
    const monitor = (...extra: string[]) =>
      runCli([
        '--memory',
        'team-a',
        'checkpoint',
        '--url',
        server.url,
        '--state',
        state,
        '--vkey',
        log.key.vkey,
        ...extra,
      ]);
    try {
      const dir = join(workspace.dir, 'monitor');
      const first = await monitor();
      expect([first.code, first.stdout.split('\n')[0]]).toEqual([
        0,
        expect.stringMatching(/^first checkpoint of log\.example\/team-a: size 20/),
      ]);
      served.size = 50;
      expect((await monitor()).code).toBe(0);
      served.tree = forked.tree;
      served.size = 60;
      const caught = await monitor();
      expect(caught.code).toBe(2);
      expect(caught.stderr).toMatch(
        /^violation: log\.example\/team-a at size 60 does not extend the saved checkpoint at size 50/,
      );
      expect(readdirSync(dir).filter((f) => f !== 'team-a.note')).toHaveLength(3);
      expect(readFileSync(state, 'utf8')).toContain('\n50\n');
    } finally {
      await server.close();
    }
    const unreachable = await runCli([
      '--memory',
      'team-a',
      'checkpoint',
      '--url',
      server.url,
      '--state',
      state,
      '--vkey',
      log.key.vkey,
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error \[CHECKPOINT_UNAVAILABLE\]: Cannot reach/);
  });
});
