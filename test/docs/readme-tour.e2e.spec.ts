/**
 * The newcomer's first hour, as the README tells it: `npm start` on a fresh data folder, then
 * every command of the README's tour, exactly as written (only the address is the started
 * server's), each answer checked for what the README says it shows. If the README and the code
 * drift apart, this fails.
 */
import { jest } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOnce } from '../cli/cli-harness.js';
import { codeBlocksUnder, root, shellCommands } from './doc-snippets.js';

jest.setTimeout(180_000);

const CURL = '/usr/bin/curl';
const hasCurl = existsSync(CURL);
if (!hasCurl) console.warn(`README tour skipped: ${CURL} is missing (apt-get install curl).`);
const describeTour = hasCurl ? describe : describe.skip;
/** The address the README's commands use. */
const README_ADDRESS = 'http://127.0.0.1:3000';
const END = '<<<end of answer>>>';

let dir: string;
let app: ChildProcess;
let url: string;

/** Runs `npm start` (as the README says) in a process group; resolves with the URL it prints. */
function npmStart(env: NodeJS.ProcessEnv): Promise<string> {
  app = spawn('npm', ['start'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`npm start printed no URL: ${out}`)), 90_000);
    app.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    app.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    app.on('exit', (code) => reject(new Error(`npm start exited with ${code}: ${out}`)));
  });
}

/** Runs the commands in one bash, each answer followed by a marker line; the answers. */
function runTour(commands: readonly string[]): Promise<string[]> {
  const script = [
    'set -eu',
    ...commands.map((command) =>
      /^[A-Z]+=/.test(command) ? command : `${command}\necho; echo '${END}'`,
    ),
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the tour failed: ${stderr}`, { cause: error }));
      else resolve(stdout.split(`${END}\n`).slice(0, -1));
    });
  });
}

describeTour('the README tour', () => {
  beforeAll(async () => {
    buildOnce();
    dir = mkdtempSync(join(tmpdir(), 'memledger-tour-'));
    const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0' };
    delete env.EVENTSTORE_URL;
    url = await npmStart({ ...env, MEMLEDGER_DB: join(dir, 'memledger.db') });
  });
  afterAll(async () => {
    if (app?.pid !== undefined && app.exitCode === null) {
      const exited = new Promise((resolve) => app.once('exit', resolve));
      process.kill(-app.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every command as the README says, against the application npm start runs', async () => {
    const [block] = codeBlocksUnder('README.md', '## A two-minute tour', 'sh');
    expect(block).toContain(README_ADDRESS);
    const commands = shellCommands(block!.replaceAll(README_ADDRESS, url));
    const answers = (await runTour(commands)).map((answer) => JSON.parse(answer) as unknown);
    const curls = commands.filter((command) => command.startsWith('curl'));
    expect(answers).toHaveLength(curls.length);
    const id = /^ID=(\S+)$/m.exec(block!)![1]!;
    const [written, recalled, deletion, now, atOne, erasure, erasedAtOne, history] =
      answers as Record<string, unknown>[];

    // 1. Write: the message at seq 0, under our id.
    expect(written).toMatchObject({ kind: 'message', id, seq: 0 });
    // 2. Recall: "peanuts allergy" finds "Peanut-free", and the Recall is on record at seq 1.
    expect(recalled).toMatchObject({ recall: { seq: 1, recalled: [id] }, items: [{ id }] });
    // 3. Delete: the Deletion at seq 2; the state now shows the message as deleted, not visible.
    expect(deletion).toMatchObject({ kind: 'deletion', seq: 2, targets: [id] });
    expect(now).toMatchObject({ visibleMessages: [], deleted: { [id]: { seq: 2 } } });
    // 4. What it knew at seq 1: the message, and its recall.
    expect(atOne).toMatchObject({
      lastSeq: 1,
      visibleMessages: [{ id, content: expect.stringContaining('Peanut-free') as string }],
      recallStats: { [id]: { count: 1, lastRecalledSeq: 1 } },
    });
    // 5. Erase: the Erasure at seq 3; as of seq 1 the message is now its erasure marker.
    expect(erasure).toMatchObject({
      erasure: { kind: 'erasure', seq: 3, targets: [id] },
      cleanup: { state: 'done' },
    });
    expect(erasedAtOne).toMatchObject({
      visibleMessages: [{ id, content: null, erased: true }],
    });
    expect(JSON.stringify(erasedAtOne)).not.toContain('peanut');
    expect(history).toMatchObject({
      event: { id, erased: true },
      recalls: [{ query: 'peanuts allergy', seq: 1 }],
      deletedBy: { reason: 'user asked to forget', requestedBy: 'user' },
      erasedBy: { reason: 'right to erasure', requestedBy: 'user' },
    });
  });

  it('serves the page the README points at', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const pageLink = /Open (http:\/\/127\.0\.0\.1:3000\/\S*):/.exec(readme)![1]!;
    const response = await fetch(pageLink.replace(README_ADDRESS, url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('<title>memledger</title>');
  });
});
