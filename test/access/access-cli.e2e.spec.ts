/**
 * The command line on the store itself: `memledger access` on a SQLite file that does not exist
 * yet (it is created, so keys exist before a server first starts), and `memledger mcp` as a local
 * principal with the rights given on its command line, or with a key it refuses.
 */
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newKeySecret, openSqliteGrantStore, secretDigest } from '../../src/access/index.js';
import { ERROR_META_KEY } from '../../src/mcp/index.js';
import { buildOnce, runCli, tempWorkspace } from '../cli/cli-harness.js';

jest.setTimeout(120_000);

const root = join(import.meta.dirname, '..', '..');

/** `memledger access create` on the file `db`, with any further arguments after the grant's. */
const createKey = (
  db: string,
  principal: string,
  memories: string,
  rights: string,
  ...more: string[]
) =>
  runCli([
    '--db',
    db,
    'access',
    'create',
    '--principal',
    principal,
    '--memories',
    memories,
    '--rights',
    rights,
    ...more,
  ]);

describe('memledger access on the store', () => {
  beforeAll(() => buildOnce());

  it('creates a key in a file that does not exist yet, lists it without its secret, and revokes it', async () => {
    const { db, cleanup } = tempWorkspace();
    try {
      expect(existsSync(db)).toBe(false);
      const created = await createKey(db, 'agent-7', 'user-42, team-*', 'recall,read', '--json');
      expect(created.code).toBe(0);
      expect(existsSync(db)).toBe(true);
      const key = JSON.parse(created.stdout) as { id: string; secret: string; rights: string[] };
      expect(key).toMatchObject({
        principal: 'agent-7',
        memories: ['user-42', 'team-*'],
        rights: ['read', 'recall'],
      });
      expect(key.secret).toMatch(/^mlk_[A-Za-z0-9_-]{43}$/);
      const list = await runCli(['--db', db, 'access', 'list']);
      expect(list.stdout).toContain(
        `${key.id}  agent-7  memories user-42,team-*  rights read,recall`,
      );
      expect(list.stdout).toContain('valid');
      expect(list.stdout).not.toContain(key.secret.slice(4));
      const revoked = await runCli(['--db', db, 'access', 'revoke', key.id]);
      expect(revoked).toMatchObject({
        code: 0,
        stdout: `revoked access key ${key.id} (principal agent-7)\n`,
      });
      const after = JSON.parse((await runCli(['--db', db, 'access', 'list', '--json'])).stdout) as {
        revokedAt: string | null;
        createdBy: { via: string };
      }[];
      expect(after[0]!.revokedAt).not.toBeNull();
      expect(after[0]!.createdBy.via).toBe('local');
      const grants = openSqliteGrantStore({ path: db });
      expect(grants.keyOfSecret(key.secret)).toBeUndefined();
      await grants.close();
    } finally {
      cleanup();
    }
  });

  it('refuses bad rights, patterns and ids, naming them, and grants nothing', async () => {
    const { db, cleanup } = tempWorkspace();
    try {
      const badRights = await createKey(db, 'a', '*', 'read,fly');
      expect(badRights.code).toBe(1);
      expect(badRights.stderr).toContain('error [VALIDATION_FAILED]: Invalid --rights "read,fly"');
      const badPattern = await createKey(db, 'a', 'a*b', 'read');
      expect(badPattern.stderr).toContain('error [VALIDATION_FAILED]: Invalid --memories "a*b"');
      const unknown = await runCli(['--db', db, 'access', 'revoke', 'no-such-key']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(
        'error [ACCESS_KEY_UNKNOWN]: Access key no-such-key was never granted',
      );
      expect((await runCli(['--db', db, 'access', 'list'])).stdout).toBe('no access keys\n');
    } finally {
      cleanup();
    }
  });

  it('revokes a key whose id begins with a dash (as one in 64 did before ids never do) after --', async () => {
    const { db, cleanup } = tempWorkspace();
    try {
      const created = await createKey(db, 'old-agent', 'a', 'read');
      expect(created.code).toBe(0);
      // A grant as an earlier version could write it: the same row under a dash-first id.
      const file = new Database(db);
      const [original] = file.prepare('SELECT key_id FROM access_grants').pluck().all() as string[];
      const dashed = `-${original!.slice(1)}`;
      file
        .prepare(
          `INSERT INTO access_grants (key_id, principal, memories, rights, secret_sha256, created_at, created_by)
           SELECT ?, principal, memories, rights, ?, created_at, created_by FROM access_grants`,
        )
        .run(dashed, secretDigest(newKeySecret()));
      file.close();

      expect(await runCli(['--db', db, 'access', 'revoke', dashed])).toMatchObject({ code: 1 });
      expect(await runCli(['--db', db, 'access', 'revoke', '--', dashed])).toMatchObject({
        code: 0,
        stdout: `revoked access key ${dashed} (principal old-agent)\n`,
      });
    } finally {
      cleanup();
    }
  });
});

describe('memledger mcp as a local principal', () => {
  it('reaches only the memories and rights of its command line, and records the principal', async () => {
    const { db, cleanup } = tempWorkspace();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(root, 'test', 'mcp', 'memledger-cli.ts'),
        '--db',
        db,
        'mcp',
        '--principal',
        'desk-agent',
        '--rights',
        'write,read',
        '--memories',
        'desk-*',
      ],
      cwd: root,
      env: process.env as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'local', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const ok = await call('remember', { memoryId: 'desk-1', speaker: 'u', content: 'hi' });
      expect(ok.structuredContent).toMatchObject({
        event: { recordedBy: { principal: 'desk-agent', via: 'local' } },
      });
      const outside = await call('remember', { memoryId: 'other', speaker: 'u', content: 'no' });
      expect(outside.isError).toBe(true);
      expect(outside._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'FORBIDDEN' });
      const noRecall = await call('recall', { memoryId: 'desk-1', query: 'hi' });
      expect(noRecall._meta?.[ERROR_META_KEY]).toMatchObject({
        message: 'Principal desk-agent lacks the right "recall" on memory desk-1.',
      });
      expect(stderr).toContain('serving memory default over stdio as desk-agent');
    } finally {
      await client.close();
      cleanup();
    }
  });

  it('refuses to start with a key the store never granted, without echoing it', async () => {
    const { db, cleanup } = tempWorkspace();
    try {
      const secret = newKeySecret();
      const run = await runCli(['--db', db, 'mcp'], { MEMLEDGER_KEY: secret });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'error [UNAUTHORIZED]: The access key is not valid here (unknown or revoked).',
      );
      expect(run.stderr + run.stdout).not.toContain(secret);
    } finally {
      cleanup();
    }
  });
});
