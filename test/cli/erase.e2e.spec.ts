/**
 * The command line's erasure, with the real binary on real SQLite files and their key stores:
 * `memledger erase`, `verify`'s check that no erased item still decrypts, and export/import of
 * the schema `version` of each line.
 */
import { jest } from '@jest/globals';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_VERSIONS } from '../../src/core/index.js';
import {
  buildOnce,
  idOf,
  parseJsonl,
  runCli,
  sampleEvents,
  tempWorkspace,
  writeJsonl,
  type CliRun,
} from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
let nextDb = 0;

/** A fresh database file and a runner of the binary on it (sealed, as by default). */
function freshDb(env: NodeJS.ProcessEnv = {}): {
  db: string;
  cli: (...args: string[]) => Promise<CliRun>;
} {
  const db = join(workspace.dir, `erase-${nextDb++}.db`);
  return { db, cli: (...args: string[]) => runCli(['--db', db, ...args], env) };
}

/** A database holding the sample log: idOf(1) deleted at seq 4, idOf(2) and idOf(3) visible. */
async function sampleDb(env: NodeJS.ProcessEnv = {}) {
  const opened = freshDb(env);
  const file = writeJsonl(join(workspace.dir, `sample-${nextDb}.jsonl`), sampleEvents());
  expect((await opened.cli('import', file)).code).toBe(0);
  return opened;
}

beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('memledger erase', () => {
  it('deletes and erases visible content, erases deleted content, and says what it did', async () => {
    const { cli } = await sampleDb();
    const both = await cli('erase', idOf(2), '--reason', 'GDPR art. 17', '--requested-by', 'dpo');
    expect(both).toMatchObject({ code: 0, stderr: '' });
    expect(both.stdout).toMatch(
      new RegExp(
        `^deleted and erased document ${idOf(2)} in memory default\n  deletion \\S+ at seq 5, erasure \\S+ at seq 6\n  reason: GDPR art. 17\n  on disk: the words are gone from every file\n$`,
      ),
    );
    const one = await cli('erase', idOf(1), '--reason', 'asked to be forgotten');
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(one.stdout).toMatch(
      new RegExp(
        `^erased message ${idOf(1)} in memory default \\(deleted at seq 4\\)\n  erasure \\S+ at seq 7\n`,
      ),
    );

    const exported = await cli('export');
    expect(exported.code).toBe(0);
    const events = parseJsonl(exported.stdout);
    expect(events.map((e) => e.kind)).toEqual([
      'message',
      'document',
      'message',
      'recall',
      'deletion',
      'deletion',
      'erasure',
      'erasure',
    ]);
    expect(events[0]).toMatchObject({ id: idOf(1), content: null, erased: true });
    expect(events[1]).toMatchObject({ id: idOf(2), name: null, text: null, erased: true });
    expect(events[6]).toMatchObject({
      targets: [idOf(2)],
      requestedBy: 'dpo',
      actor: 'memledger-cli',
    });
    expect(exported.stdout).not.toMatch(/API key is 1234|make release|runbook/);

    const audit = await cli('audit', idOf(1));
    expect(audit.stdout).toMatch(/erased: seq 7, .*\n {4}reason: asked to be forgotten/);
    expect(audit.stdout).toContain(
      'message, actor chat-ui, recorded by nobody authenticated, source chat: [erased]',
    );
    // The command line vouches for the user who ran it.
    expect(audit.stdout).toMatch(/erased: seq 7, .*actor memledger-cli, recorded by \S+ \(local\)/);

    // As of a seq before the erasure the items were visible: they read as erased, never as null.
    const before = await cli('replay', '--up-to', '3');
    expect(before.stdout).toContain(`${idOf(1)}  message   user: [erased]`);
    expect(before.stdout).toContain(`${idOf(2)}  document  [erased]`);
    expect(before.stdout).not.toContain('null');
    const now = await cli('replay');
    expect(now.stdout).toContain(`${idOf(1)}  at seq 4, erased at seq 7, requested by user:`);
    expect(now.stdout).toContain(
      `${idOf(2)}  at seq 5, erased at seq 6, requested by dpo: GDPR art. 17`,
    );
  });

  it.each([
    ['an item already erased', () => idOf(1), 'ALREADY_ERASED', true],
    ['a recall', () => idOf(4), 'ERASURE_TARGET_NOT_CONTENT', false],
    ['an unknown id', () => idOf(99), 'ERASURE_TARGET_UNKNOWN', false],
  ])(
    'refuses %s with its code, exit 1, and writes nothing',
    async (_what, id, code, erasedFirst) => {
      const { cli } = await sampleDb();
      if (erasedFirst) expect((await cli('erase', idOf(1), '--reason', 'first')).code).toBe(0);
      const before = (await cli('export')).stdout;
      const run = await cli('erase', id(), '--reason', 'again');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^error \\[${code}\\]: .*${id()}`));
      expect((await cli('export')).stdout).toBe(before);
    },
  );

  it('needs a reason', async () => {
    const { cli } = await sampleDb();
    const run = await cli('erase', idOf(2));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/required option '--reason <text>' not specified/);
  });

  it('refuses a store written without keys with ERASURE_UNAVAILABLE, writing neither act', async () => {
    const { db, cli } = await sampleDb({ MEMLEDGER_ENCRYPTION: 'off' });
    expect(existsSync(`${db}.keys`)).toBe(false);
    const before = (await cli('export')).stdout;
    const run = await cli('erase', idOf(2), '--reason', 'forget');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[ERASURE_UNAVAILABLE\]: /);
    expect((await cli('export')).stdout).toBe(before);
  });
});

describe('memledger verify and erasures', () => {
  it('finds every erased item unreadable', async () => {
    const { cli } = await sampleDb();
    await cli('erase', idOf(2), '--reason', 'forget');
    await cli('erase', idOf(1), '--reason', 'forget');
    const run = await cli('verify');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('ok: 8 events, last seq 7, 2 erased items unreadable\n');
  });

  it('reports an erased item whose key came back (a key store restored from an old backup)', async () => {
    const { db, cli } = await sampleDb();
    const backup = join(workspace.dir, 'keys-backup');
    copyFileSync(`${db}.keys`, backup);
    const erased = await cli('erase', idOf(2), '--reason', 'forget');
    expect(erased.code).toBe(0);
    for (const suffix of ['-wal', '-shm']) rmSync(`${db}.keys${suffix}`, { force: true });
    copyFileSync(backup, `${db}.keys`);
    const run = await cli('verify');
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      new RegExp(
        `^violation \\[ERASED_CONTENT_READABLE\\] at seq 6: Item ${idOf(2)}, erased by \\S+, still holds its key in the key store .*\n$`,
      ),
    );
  });

  it('destroys such a key again with --repair-erasures, and verifies clean afterwards', async () => {
    const { db, cli } = await sampleDb();
    const backup = join(workspace.dir, 'keys-backup-repair');
    copyFileSync(`${db}.keys`, backup);
    expect((await cli('erase', idOf(2), '--reason', 'forget')).code).toBe(0);
    for (const suffix of ['-wal', '-shm']) rmSync(`${db}.keys${suffix}`, { force: true });
    copyFileSync(backup, `${db}.keys`);
    expect((await cli('verify')).code).toBe(2);

    const repaired = await cli('verify', '--repair-erasures');
    expect(repaired).toMatchObject({ code: 0, stderr: '' });
    expect(repaired.stdout).toMatch(/^repaired: destroyed again the keys of 1 erased item\n/);
    expect(repaired.stdout).toMatch(/ok: \d+ events, last seq \d+, 1 erased items unreadable\n$/);
    const after = await cli('verify');
    expect(after.code).toBe(0);
    expect((await cli('replay', '--json')).stdout).not.toContain('runbook');
  });

  it('cannot vouch for erasures when the key store is not opened', async () => {
    const { db, cli } = await sampleDb();
    await cli('erase', idOf(2), '--reason', 'forget');
    const run = await runCli(['--db', db, 'verify'], { MEMLEDGER_ENCRYPTION: 'off' });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^violation \[ERASURE_UNVERIFIABLE\] at seq 6: Erasure \S+ cannot be checked: the store was opened without its key store/,
    );
  });
});

describe('export and import of schema versions', () => {
  it('writes the version of its kind on every line, and imports it back', async () => {
    const { cli } = await sampleDb();
    const exported = (await cli('export')).stdout;
    const events = parseJsonl(exported);
    expect(events.map((e) => e.version)).toEqual(
      events.map((e) => EVENT_VERSIONS[e.kind as keyof typeof EVENT_VERSIONS]),
    );
    const copy = freshDb();
    const file = join(workspace.dir, 'versioned.jsonl');
    writeJsonl(file, events);
    expect((await copy.cli('import', file)).code).toBe(0);
    expect((await copy.cli('export')).stdout).toBe(exported);
  });

  it('reads a line without version as version 1, and version 1 lines as such', async () => {
    const { cli } = freshDb();
    const [message, document] = sampleEvents();
    const file = writeJsonl(join(workspace.dir, 'v1.jsonl'), [
      message!,
      { ...document!, version: 1 },
    ]);
    expect((await cli('import', file)).code).toBe(0);
    expect(parseJsonl((await cli('export')).stdout).map((e) => e.version)).toEqual([3, 3]);
  });

  it('refuses a line of a future version with EVENT_VERSION_UNSUPPORTED naming the line', async () => {
    const { db, cli } = freshDb();
    const [message, document, other] = sampleEvents();
    const file = writeJsonl(join(workspace.dir, 'future.jsonl'), [
      message!,
      { ...document!, version: 2 },
      { ...other!, version: 99 },
    ]);
    const run = await cli('import', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error \\[EVENT_VERSION_UNSUPPORTED\\]: Line 3: message "${idOf(3)}" has schema version 99`,
      ),
    );
    expect(existsSync(db) ? (await cli('export')).stdout : '').toBe('');
    expect(readFileSync(file, 'utf8')).toContain('"version":99');
  });
});
