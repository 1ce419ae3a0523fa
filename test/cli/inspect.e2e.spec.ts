/** The binary end to end on a SQLite file: import, then replay, audit and verify read it back. */
import { jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildOnce,
  idOf,
  runCli,
  sampleEvents,
  tempWorkspace,
  writeJsonl,
  type CliRun,
} from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
const { db, dir } = workspace;
const cli = (...args: string[]): Promise<CliRun> => runCli(['--db', db, ...args]);

beforeAll(async () => {
  buildOnce();
  const imported = await cli('import', writeJsonl(join(dir, 'sample.jsonl'), sampleEvents()));
  expect(imported).toMatchObject({ code: 0, stderr: '' });
  expect(imported.stdout).toBe(
    'imported 5 events into memory default (seq 0..4); 0 already present\n',
  );
});
afterAll(() => workspace.cleanup());

describe('memledger replay', () => {
  it('prints counts, visible items, deleted items with reason and recall stats', async () => {
    const { code, stdout } = await cli('replay');
    expect(code).toBe(0);
    expect(stdout).toContain('memory default: state at seq 4 (log head 4)');
    expect(stdout).toContain(
      'messages: 2 (1 visible), documents: 1 (1 visible), deleted: 1, recalled items: 2',
    );
    expect(stdout).toContain(`${idOf(2)}  document  runbook.md: Deploy with make release`);
    expect(stdout).toContain(`${idOf(3)}  message   assistant: Noted.`);
    expect(stdout).toContain(
      `${idOf(1)}  at seq 4, requested by user: user asked to forget the key`,
    );
    expect(stdout).toContain(`${idOf(1)}  1 recall, last at seq 3 (2024-03-02T08:00:00.000Z)`);
  });

  it('cuts item text at 60 characters', async () => {
    const { stdout } = await cli('replay', '--up-to', '0');
    const line = stdout.split('\n').find((l) => l.includes(`${idOf(1)}  message`))!;
    expect(line).toBe(
      `  ${idOf(1)}  message   ${'user: My API key is 1234; please remember it for the deploym'}…`,
    );
  });

  it('rebuilds the state as it stood right after --up-to', async () => {
    const { code, stdout } = await cli('replay', '--up-to', '3', '--json');
    expect(code).toBe(0);
    const state = JSON.parse(stdout) as {
      lastSeq: number;
      visibleMessages: { id: string }[];
      deleted: object;
      recallStats: Record<string, { count: number }>;
    };
    expect(state.lastSeq).toBe(3);
    expect(state.visibleMessages.map((m) => m.id)).toEqual([idOf(1), idOf(3)]);
    expect(state.deleted).toEqual({});
    expect(state.recallStats[idOf(2)]?.count).toBe(1);
  });

  it('gives the empty state for --up-to -1', async () => {
    const { stdout } = await cli('replay', '--up-to', '-1', '--json');
    expect(JSON.parse(stdout)).toMatchObject({ lastSeq: null, messages: [] });
  });

  it('rejects a --up-to that is not an integer as a usage error', async () => {
    const { code, stderr } = await cli('replay', '--up-to', 'yesterday');
    expect(code).toBe(1);
    expect(stderr).toContain("option '--up-to <seq>' argument 'yesterday' is invalid");
  });
});

describe('memledger audit', () => {
  it('shows when an item was written, every recall that used it and its deletion', async () => {
    const { code, stdout } = await cli('audit', idOf(1));
    expect(code).toBe(0);
    expect(stdout).toContain(`message ${idOf(1)}`);
    expect(stdout).toContain(
      'written: seq 0, 2024-03-01T08:00:00.000Z, speaker user, actor chat-ui',
    );
    expect(stdout).toContain('recalled: 1 time');
    expect(stdout).toContain(
      `seq 3, 2024-03-02T08:00:00.000Z, query "api key", actor agent-7, recorded by nobody authenticated (recall ${idOf(4)})`,
    );
    expect(stdout).toContain(
      `deleted: seq 4, 2024-03-03T08:00:00.000Z, requested by user, actor none, recorded by nobody authenticated (deletion ${idOf(5)})`,
    );
    expect(stdout).toContain('reason: user asked to forget the key');
  });

  it('says an item that was never deleted is not deleted', async () => {
    const { stdout } = await cli('audit', idOf(2));
    expect(stdout).toContain('deleted: no');
  });

  it('prints the history as JSON with --json', async () => {
    const { code, stdout } = await cli('audit', idOf(1).toUpperCase(), '--json');
    expect(code).toBe(0);
    const history = JSON.parse(stdout) as {
      event: { id: string; seq: number };
      recalls: { recallId: string; query: string; actor: string }[];
      deletedBy: { id: string; reason: string; requestedBy: string };
    };
    expect(history.event).toMatchObject({ id: idOf(1), seq: 0 });
    expect(history.recalls).toEqual([
      expect.objectContaining({ recallId: idOf(4), query: 'api key', actor: 'agent-7', seq: 3 }),
    ]);
    expect(history.deletedBy).toMatchObject({ id: idOf(5), requestedBy: 'user' });
  });

  it('reports an unknown id as one error line and exits 1', async () => {
    const { code, stdout, stderr } = await cli('audit', idOf(99));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `error [EVENT_NOT_FOUND]: Event ${idOf(99)} does not exist in memory default.\n`,
    );
  });
});

describe('memledger verify', () => {
  it('replays the whole log and says ok with the count and the last seq', async () => {
    await expect(cli('verify')).resolves.toEqual({
      code: 0,
      stdout: 'ok: 5 events, last seq 4\n',
      stderr: '',
    });
  });
});

describe('--memory', () => {
  it('says a memory with no events has none and names the memories that exist, exit 1', async () => {
    const noEvents = `error [VALIDATION_FAILED]: Memory "other" has no events in SQLite ${db}; memories with events: default.\n`;
    for (const command of [
      ['replay', '--json'],
      ['audit', idOf(1)],
      ['export'],
      ['verify'],
      ['rebuild', '--no-progress'],
      ['erase', idOf(1), '--reason', 'typo'],
    ]) {
      const run = await cli('--memory', 'other', ...command);
      expect({ command, ...run }).toEqual({ command, code: 1, stdout: '', stderr: noEvents });
    }
  });

  it('imports into the named memory from seq 0, leaving the default memory as it was', async () => {
    const file = join(dir, 'other.jsonl');
    writeFileSync(file, `${JSON.stringify(sampleEvents()[1])}\n`);
    const imported = await cli('--memory', 'other', 'import', file);
    expect(imported.stdout).toBe(
      'imported 1 events into memory other (seq 0..0); 0 already present\n',
    );
    expect((await cli('--memory', 'other', 'verify')).stdout).toBe('ok: 1 events, last seq 0\n');
    expect((await cli('verify')).stdout).toBe('ok: 5 events, last seq 4\n');
  });

  it('rejects an invalid memory id with its rule', async () => {
    const { code, stderr } = await cli('--memory', 'no spaces', 'replay');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error \[INVALID_MEMORY_ID\]: Invalid memory id "no spaces": .*\n$/);
  });
});
