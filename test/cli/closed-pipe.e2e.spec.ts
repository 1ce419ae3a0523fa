/**
 * A reader that closes the pipe early (`memledger export | head`) is a normal end for the
 * command line: no error line, exit 0, the store closed. Real binary, real shell pipe.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { buildOnce, idOf, runCli, tempWorkspace, writeJsonl } from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
const bin = join(import.meta.dirname, '..', '..', 'bin', 'memledger.js');
/** Far more output than a pipe buffers (64 KiB), so the writer meets the closed pipe. */
const MESSAGES = 3000;

/** Runs `memledger <args> | head -n 1` in bash; the first line and each side's exit code. */
function pipedToHead(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const quoted = [process.execPath, bin, '--db', workspace.db, ...args]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const script = `${quoted} | head -n 1; echo "exit \${PIPESTATUS[0]} \${PIPESTATUS[1]}"`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { timeout: 90_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr, { cause: error })) : resolve({ stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  buildOnce();
  const lines = Array.from({ length: MESSAGES }, (_, i) => ({
    kind: 'message',
    id: idOf(i + 1),
    timestamp: '2026-01-01T00:00:00Z',
    speaker: 'user',
    content: `Message number ${i} of a long conversation, long enough to fill a pipe quickly.`,
  }));
  const run = await runCli([
    '--db',
    workspace.db,
    'import',
    writeJsonl(join(workspace.dir, 'long.jsonl'), lines),
  ]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
});
afterAll(() => workspace.cleanup());

describe('a closed pipe', () => {
  it.each([[['export']], [['replay']], [['replay', '--json']]])(
    'ends `memledger %j | head -n 1` quietly with exit 0',
    async (args) => {
      const { stdout, stderr } = await pipedToHead(args);
      const [first, status] = stdout.trimEnd().split('\n');
      expect(first!.length).toBeGreaterThan(0);
      expect(status).toBe('exit 0 0');
      expect(stderr).toBe('');
    },
  );
});
