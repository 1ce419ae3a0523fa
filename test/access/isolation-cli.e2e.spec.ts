/**
 * The isolation matrix through the command line against a server (`memledger --server <url>
 * --key <secret>`): audit, export, search and the checkpoint monitor need `read`, recall needs
 * `recall`, erase needs `erase` (and `delete` for visible content). An allowed run prints what it
 * did; every other one exits 1 with `error [FORBIDDEN]`, prints no content or id, and writes
 * nothing.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Right } from '../../src/access/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import {
  expectNothingRevealed,
  MEMORIES,
  missingRight,
  startMatrix,
  WITH_EMBEDDER,
  type KeyName,
  type Matrix,
} from './isolation.fixture.js';

jest.setTimeout(180_000);

interface CommandCase {
  readonly name: string;
  readonly rights: readonly Right[];
  args(memoryId: string, m: Matrix): string[];
  /** What an allowed run prints. */
  readonly prints: (memoryId: string, m: Matrix) => string;
}

const COMMANDS: readonly CommandCase[] = [
  {
    name: 'audit',
    rights: ['read'],
    args: () => ['audit', '--principal', 'seeder'],
    prints: () => '0 recalls',
  },
  {
    name: 'export',
    rights: ['read'],
    args: () => ['export'],
    prints: (id, m) => m.seeded[id]!.marker,
  },
  {
    name: 'search',
    rights: ['read'],
    args: () => ['search', 'note', '--mode', 'semantic'],
    prints: (id, m) => m.seeded[id]!.marker,
  },
  {
    name: 'recall',
    rights: ['recall'],
    args: () => ['recall', 'note', '--mode', 'hybrid'],
    prints: (id, m) => m.seeded[id]!.marker,
  },
  {
    name: 'erase',
    rights: ['erase', 'delete'],
    args: (id, m) => ['erase', m.seeded[id]!.visible.pop()!, '--reason', 'cli matrix'],
    prints: () => 'deleted and erased item',
  },
  {
    name: 'checkpoint monitor',
    rights: ['read'],
    args: (id, m) => [
      'checkpoint',
      '--url',
      m.url,
      '--vkey',
      m.vkey,
      '--state',
      join(stateDir, `${id}-${Math.random().toString(36).slice(2)}.note`),
    ],
    prints: () => 'saved ',
  },
];

/** Where the monitor keeps the checkpoints it verified. */
const stateDir = mkdtempSync(join(tmpdir(), 'memledger-isolation-cli-'));

const KEYS: readonly KeyName[] = ['reader', 'agent', 'janitor'];

describe('isolation matrix through the command line', () => {
  let m: Matrix;
  beforeAll(async () => {
    buildOnce();
    m = await startMatrix(12, WITH_EMBEDDER);
  }, 120_000);
  afterAll(async () => {
    await m?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('runs every command for three keys on four memories: allowed ones work, the rest are refused', async () => {
    const cases = KEYS.flatMap((key) =>
      MEMORIES.flatMap((memoryId) => COMMANDS.map((command) => ({ key, memoryId, command }))),
    );
    // Sequential: each refusal is checked against log heads nobody else moves meanwhile.
    for (const { key, memoryId, command } of cases) {
      const matrixKey = m.keys[key];
      const missing = missingRight(matrixKey, memoryId, command.rights);
      const before = await m.heads();
      const run = await runCli(
        ['--server', m.url, '--memory', memoryId, ...command.args(memoryId, m)],
        { MEMLEDGER_KEY: matrixKey.secret },
      );
      const label = `${key} ${command.name} on ${memoryId}`;
      if (missing === undefined) {
        expect([label, run.code, run.stderr]).toEqual([label, 0, '']);
        expect(run.stdout).toContain(command.prints(memoryId, m));
        continue;
      }
      expect([label, run.code]).toEqual([label, 1]);
      expect(run.stderr).toContain('error [FORBIDDEN]: ');
      expect(run.stderr).toContain(`lacks the right "${missing}" on memory ${memoryId}.`);
      expect(run.stdout).toBe('');
      expectNothingRevealed(run.stderr, m.secrets());
      expect(await m.heads()).toEqual(before);
    }
  });

  it('lists and creates keys through the server only within an admin grant', async () => {
    const admin = { MEMLEDGER_KEY: m.keys.teamAdmin.secret };
    const list = await runCli(['--server', m.url, 'access', 'list', '--json'], admin);
    expect(list.code).toBe(0);
    const listed = (JSON.parse(list.stdout) as { principal: string }[]).map((k) => k.principal);
    expect(listed).toEqual(['team-admin']);
    const inside = await runCli(
      [
        '--server',
        m.url,
        'access',
        'create',
        '--principal',
        'helper',
        '--memories',
        'm-c1',
        '--rights',
        'read',
        '--json',
      ],
      admin,
    );
    expect(inside.code).toBe(0);
    const created = JSON.parse(inside.stdout) as { principal: string; secret: string };
    expect(created.principal).toBe('helper');
    expect(created.secret).toMatch(/^mlk_[A-Za-z0-9_-]{43}$/);
    const outside = await runCli(
      [
        '--server',
        m.url,
        'access',
        'create',
        '--principal',
        'x',
        '--memories',
        'm-a',
        '--rights',
        'read',
      ],
      admin,
    );
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('error [FORBIDDEN]');
    const notAdmin = await runCli(['--server', m.url, 'access', 'list'], {
      MEMLEDGER_KEY: m.keys.agent.secret,
    });
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toContain('lacks the right "admin"');
  });

  it('refuses commands that work on the store itself when --server is given', async () => {
    const run = await runCli(['--server', m.url, 'replay']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'memledger replay works on the store itself, not through --server',
    );
  });
});
