/**
 * Runs the real `memledger` binary (`node bin/memledger.js`) in a child process, on a temporary
 * SQLite file, and builds the JSON Lines fixtures the CLI specs import.
 */
import { execFile } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'memledger.js');

/** What one run of the binary gave. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Builds dist/ once (the binary would do it on its first run), so runs stay fast. */
export function buildOnce(): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-if-needed.mjs')], {
    stdio: 'inherit',
    timeout: 120_000,
  });
}

/** A temporary folder with a database path; `cleanup()` removes it. */
export function tempWorkspace(): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-cli-'));
  return { dir, db: join(dir, 'memledger.db'), cleanup: () => rmSync(dir, { recursive: true }) };
}

/** Runs `memledger <args>` with a clean environment (no EVENTSTORE_URL, no MEMLEDGER_DB). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const childEnv = { ...process.env, ...env };
  for (const key of ['EVENTSTORE_URL', 'MEMLEDGER_DB'] as const) {
    if (!(key in env)) delete childEnv[key];
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: childEnv, timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A deterministic UUID v7-shaped id numbered `n`. */
export const idOf = (n: number): string => `0193a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Writes JSON Lines (objects or raw text lines) to `path`. */
export function writeJsonl(path: string, lines: readonly (object | string)[]): string {
  const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
  writeFileSync(path, `${text}\n`);
  return path;
}

/** A small log in the wire format: two messages, a document, a recall, a deletion. */
export function sampleEvents(): Record<string, unknown>[] {
  return [
    {
      kind: 'message',
      id: idOf(1),
      timestamp: '2024-03-01T10:00:00+02:00',
      sessionId: 's1',
      actor: 'chat-ui',
      source: 'chat',
      speaker: 'user',
      content: 'My API key is 1234; please remember it for the deployment tomorrow morning.',
    },
    {
      kind: 'document',
      id: idOf(2),
      timestamp: '2024-03-01T09:00:00.123456Z',
      name: 'runbook.md',
      text: 'Deploy with make release, then watch the dashboard.',
      mediaType: 'text/markdown',
    },
    {
      kind: 'message',
      id: idOf(3),
      timestamp: '2024-03-01T10:05:00Z',
      speaker: 'assistant',
      content: 'Noted.',
    },
    {
      kind: 'recall',
      id: idOf(4),
      timestamp: '2024-03-02T08:00:00Z',
      actor: 'agent-7',
      query: 'api key',
      recalled: [idOf(1), idOf(2)],
    },
    {
      kind: 'deletion',
      id: idOf(5),
      timestamp: '2024-03-03T08:00:00Z',
      targets: [idOf(1)],
      reason: 'user asked to forget the key',
      requestedBy: 'user',
    },
  ];
}

/** Parses JSON Lines output. */
export function parseJsonl(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
