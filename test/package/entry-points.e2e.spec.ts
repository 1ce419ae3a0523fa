/**
 * The published entry points, as a user imports them: the built package resolved by its own
 * name through package.json "exports" (memledger, /sqlite, /eventstoredb, /nest, /testing).
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOnce } from '../cli/cli-harness.js';

jest.setTimeout(180_000);
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

const script = `
const root = await import('memledger');
const { openSqliteStore } = await import('memledger/sqlite');
const { openEventStoreDbStore } = await import('memledger/eventstoredb');
const { MemoryModule, RecallCommand } = await import('memledger/nest');
const { deterministicDefaults } = await import('memledger/testing');
const memledger = root.openMemledger({ store: openSqliteStore({ path: ':memory:' }), defaults: deterministicDefaults() });
const memory = await memledger.memory();
const m = await memory.recordMessage({ speaker: 'user', content: 'the deploy key is in the vault' });
const { items } = await memory.recall({ query: 'deploy key' });
await memory.deleteContent({ targets: [m.id], reason: 'test' });
const state = root.replay(await memory.readEvents());
console.log(JSON.stringify({
  exports: [typeof openEventStoreDbStore, typeof MemoryModule, typeof RecallCommand],
  recalled: items.map((i) => i.id),
  visible: state.visibleMessages.length,
  deletedBy: state.deleted[m.id].reason,
}));
await memledger.close();
`;

describe('package entry points', () => {
  beforeAll(() => buildOnce());

  it('load from the built package by name and work together end to end', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual({
      exports: ['function', 'function', 'function'],
      recalled: ['00000000-0000-7000-8000-000000000001'],
      visible: 0,
      deletedBy: 'test',
    });
  });
});
