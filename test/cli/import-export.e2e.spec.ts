/** import and export through the real binary: validation first, batches, idempotency, round trip. */
import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
/** A runner on a fresh database file. */
const freshDb = () => {
  const db = join(workspace.dir, `db-${nextDb++}.db`);
  return (...args: string[]): Promise<CliRun> => runCli(['--db', db, ...args]);
};
const file = (name: string, lines: readonly (object | string)[]) =>
  writeJsonl(join(workspace.dir, name), lines);

beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

describe('memledger import: the whole file is checked before anything is written', () => {
  it('reports invalid JSON with its line number and writes nothing', async () => {
    const cli = freshDb();
    const [a, b] = sampleEvents();
    const run = await cli('import', file('bad-json.jsonl', [a!, b!, '{"kind": "message", oops']));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^line 3: \(root\): invalid JSON \(.+\)\n/);
    expect(run.stderr).toContain(
      'error [VALIDATION_FAILED]: ' +
        join(workspace.dir, 'bad-json.jsonl') +
        ': 1 invalid line; nothing was imported.\n',
    );
    expect(run.stdout).toBe('');
    expect(await cli('export')).toMatchObject({ code: 1, stdout: '' }); // no database was even created
  });

  it('reports a schema violation as line N: path: rule and writes nothing', async () => {
    const cli = freshDb();
    const events = sampleEvents();
    expect((await cli('import', file('before.jsonl', [events[1]!]))).code).toBe(0);
    const broken = { ...events[2], content: '   ' };
    const undated = { ...events[0], id: idOf(40), timestamp: '2024-03-01T10:00:00' };
    const run = await cli('import', file('bad-schema.jsonl', [events[0]!, broken, undated]));
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('line 2: content: must contain at least one non-whitespace character');
    expect(lines[1]).toMatch(/^line 3: timestamp: .+/);
    expect(lines[2]).toMatch(/: 2 invalid lines; nothing was imported\.$/);
    expect(lines).toHaveLength(3);
    expect((await cli('verify')).stdout).toBe('ok: 1 events, last seq 0\n');
  });

  it('refuses a line the append guard would refuse (deleting an unknown id), naming the line', async () => {
    const cli = freshDb();
    const events = sampleEvents();
    const stray = { ...events[4], id: idOf(41), targets: [idOf(77)] };
    const run = await cli('import', file('bad-guard.jsonl', [...events, stray]));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `line 6: targets: Deletion target ${idOf(77)} does not exist in memory default. [DELETION_TARGET_UNKNOWN]\n`,
    );
    const verify = await cli('verify');
    expect(verify.stderr).toContain('Memory "default" has no events');
    expect(verify.code).toBe(1);
  });

  it('refuses an id repeated within the file', async () => {
    const cli = freshDb();
    const [a] = sampleEvents();
    const run = await cli('import', file('twice.jsonl', [a!, '', a!]));
    expect(run.stderr).toContain('line 3: id: repeats the id of line 1\n');
    expect(run.code).toBe(1);
  });

  it('reports a missing file as one error line', async () => {
    const run = await freshDb()('import', join(workspace.dir, 'missing.jsonl'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[ENOENT\]: .*missing\.jsonl.*\n$/);
  });
});

describe('memledger import: idempotent and resumable', () => {
  it('writes nothing new when the same file is imported again', async () => {
    const cli = freshDb();
    const sample = file('sample.jsonl', sampleEvents());
    expect((await cli('import', sample)).code).toBe(0);
    const before = (await cli('export')).stdout;
    const again = await cli('import', sample);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe(
      'nothing to import into memory default: all 5 events are already in the log\n',
    );
    expect((await cli('export')).stdout).toBe(before);
  });

  it('completes an interrupted import: a prefix already written is skipped, the rest appended', async () => {
    const cli = freshDb();
    const events = sampleEvents();
    expect((await cli('import', file('prefix.jsonl', events.slice(0, 2)))).code).toBe(0);
    const rest = await cli('import', '--batch-size', '2', file('whole.jsonl', events));
    expect(rest.stdout).toBe(
      'imported 3 events into memory default (seq 2..4); 2 already present\n',
    );
    expect((await cli('verify')).stdout).toBe('ok: 5 events, last seq 4\n');
  });

  it('refuses an event whose id is already in the log with other content', async () => {
    const cli = freshDb();
    const [a] = sampleEvents();
    expect((await cli('import', file('one.jsonl', [a!]))).code).toBe(0);
    const run = await cli('import', file('changed.jsonl', [{ ...a, content: 'changed' }]));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^line 1: id: Event .* with different content\. \[ID_CONFLICT\]\n/);
  });
});

describe('memledger import: timestamps and seqs', () => {
  it('keeps a backdated timestamp and gives the event the next seq', async () => {
    const cli = freshDb();
    expect((await cli('import', file('s.jsonl', sampleEvents()))).code).toBe(0);
    const old = {
      kind: 'message',
      id: idOf(50),
      timestamp: '2019-12-31T23:00:00-01:00',
      speaker: 'archive',
      content: 'from the old system',
      seq: 0, // ignored: the store assigns seq
    };
    const run = await cli('import', file('old.jsonl', [old]));
    expect(run.stdout).toBe(
      'imported 1 events into memory default (seq 5..5); 0 already present\n',
    );
    const exported = parseJsonl((await cli('export')).stdout);
    expect(exported.at(-1)).toMatchObject({
      id: idOf(50),
      seq: 5,
      timestamp: '2020-01-01T00:00:00.000Z',
    });
    expect(exported.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('memledger export', () => {
  it('writes one event per line with its seq, and round-trips exactly through import', async () => {
    const source = freshDb();
    expect((await source('import', file('src.jsonl', sampleEvents()))).code).toBe(0);
    const exported = await source('export');
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const events = parseJsonl(exported.stdout);
    expect(events.map((e) => [e.id, e.seq])).toEqual(sampleEvents().map((e, seq) => [e.id, seq]));
    expect(events[1]).toMatchObject({ timestamp: '2024-03-01T09:00:00.123456Z' });

    const target = freshDb();
    const out = join(workspace.dir, 'copy.jsonl');
    expect((await source('export', '--out', out)).stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(exported.stdout);
    expect((await target('import', out)).code).toBe(0);
    expect((await target('export')).stdout).toBe(exported.stdout);
  });

  it('exports only the memory --memory names', async () => {
    const cli = freshDb();
    const [a, b] = sampleEvents();
    await cli('import', file('a.jsonl', [a!]));
    await cli('--memory', 'm2', 'import', file('b.jsonl', [b!]));
    expect(parseJsonl((await cli('--memory', 'm2', 'export')).stdout)).toEqual([
      expect.objectContaining({ id: idOf(2), seq: 0 }),
    ]);
  });
});
