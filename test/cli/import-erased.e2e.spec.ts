/**
 * An export that holds erasures imports back: its erased items (words null, `erased: true`)
 * arrive erased in a store with a key store, the Erasures on record, the state equal to the
 * source's; a second import writes nothing; a store without keys refuses the file before
 * writing anything.
 */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import {
  buildOnce,
  idOf,
  parseJsonl,
  runCli,
  sampleEvents,
  tempWorkspace,
  writeJsonl,
} from './cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

const on = (name: string, env: NodeJS.ProcessEnv = {}) => {
  const db = join(workspace.dir, name);
  return (...args: string[]) => runCli(['--db', db, ...args], env);
};

describe('memledger import of an export with erasures', () => {
  it('brings erased items back erased, replays to the same state, and is idempotent', async () => {
    const source = on('source.db');
    expect(
      (await source('import', writeJsonl(join(workspace.dir, 's.jsonl'), sampleEvents()))).code,
    ).toBe(0);
    // idOf(1) is deleted in the sample: erase it; idOf(2) is deleted and erased at once.
    expect((await source('erase', idOf(1), '--reason', 'asked')).code).toBe(0);
    expect((await source('erase', idOf(2), '--reason', 'asked too')).code).toBe(0);
    const exported = (await source('export')).stdout;
    const lines = parseJsonl(exported);
    expect(lines.filter((l) => l.erased === true).map((l) => l.id)).toEqual([idOf(1), idOf(2)]);
    const file = join(workspace.dir, 'export.jsonl');
    writeFileSync(file, exported);

    const target = on('target.db');
    const imported = await target('import', file);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect((await target('replay', '--json')).stdout).toBe(
      (await source('replay', '--json')).stdout,
    );
    expect((await target('export')).stdout).toBe(exported);
    expect((await target('verify')).code).toBe(0);

    const again = await target('import', file);
    expect(again.stdout).toMatch(/nothing to import .*already in the log/);
    expect((await target('export')).stdout).toBe(exported);
  });

  it('is refused whole, before anything is written, by a store without a key store', async () => {
    const source = on('source2.db');
    await source('import', writeJsonl(join(workspace.dir, 's2.jsonl'), sampleEvents()));
    await source('erase', idOf(1), '--reason', 'asked');
    const file = join(workspace.dir, 'export2.jsonl');
    writeFileSync(file, (await source('export')).stdout);

    const plain = on('plain.db', { MEMLEDGER_ENCRYPTION: 'off' });
    const run = await plain('import', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ERASURE_UNAVAILABLE');
    expect(run.stderr).toContain('needs a store with a key store');
    expect((await plain('export')).stdout).toBe('');
  });
});
