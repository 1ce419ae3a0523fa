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

  it('share one copy of the code: an error thrown behind memledger/sqlite is the root MemoryError', async () => {
    const shared = `
const { MemoryError } = await import('memledger');
const { openSqliteStore } = await import('memledger/sqlite');
const { MemoryModule } = await import('memledger/nest');
let caught;
try {
  const store = openSqliteStore({ path: process.cwd() + '/package.json' });
  await store.log('m').lastSeq();
} catch (error) {
  caught = error;
}
console.log(JSON.stringify({ same: caught instanceof MemoryError, code: caught?.code, nest: MemoryModule.name }));
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', shared], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual({ same: true, code: 'STORE_FAILED', nest: 'MemoryModule' });
  });

  it('leave better-sqlite3 unloaded until a file is opened, which then works', async () => {
    const lazy = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/package.json');
const loaded = () => Object.keys(require.cache).some((path) => path.includes('/node_modules/better-sqlite3/'));
const root = await import('memledger');
const { openSqliteStore } = await import('memledger/sqlite');
const before = loaded();
const memledger = root.openMemledger({ store: openSqliteStore({ path: ':memory:' }) });
const memory = await memledger.memory();
await memory.recordMessage({ speaker: 'user', content: 'written' });
const { visibleMessages } = await memory.statePage({ limit: 5 });
console.log(JSON.stringify({ before, after: loaded(), visible: visibleMessages.length }));
await memledger.close();
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', lazy], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true, visible: 1 });
  });

  it('leave rxjs unloaded until a live stream is asked for, which then works', async () => {
    const lazy = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/package.json');
const loaded = () => Object.keys(require.cache).some((path) => path.includes('/node_modules/rxjs/'));
const { openMemledger } = await import('memledger');
const { openSqliteStore } = await import('memledger/sqlite');
const memledger = openMemledger({ store: openSqliteStore({ path: ':memory:' }) });
const memory = await memledger.memory();
await memory.recordMessage({ speaker: 'user', content: 'written' });
await memory.recall({ query: 'written' });
const before = loaded();
const seen = [];
const subscription = memory.changes({ fromSeq: 0 }).subscribe((event) => seen.push(event.seq));
await memory.recordMessage({ speaker: 'user', content: 'live' });
await memory.waitFor(2);
await new Promise((resolve) => setTimeout(resolve, 50));
subscription.unsubscribe();
console.log(JSON.stringify({ before, after: loaded(), seen }));
await memledger.close();
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', lazy], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true, seen: [0, 1, 2] });
  });

  it('leave @opentelemetry/api unloaded until something registers with it, then trace through it', async () => {
    const lazy = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/package.json');
const loaded = () => Object.keys(require.cache).some((path) => path.includes('@opentelemetry/api'));
const { openMemledger, traceMemledger } = await import('memledger');
const { openSqliteStore } = await import('memledger/sqlite');
const memledger = traceMemledger(openMemledger({ store: openSqliteStore({ path: ':memory:' }) }));
const memory = await memledger.memory();
await memory.recordMessage({ speaker: 'user', content: 'no tracing yet' });
const before = loaded();
const api = require('@opentelemetry/api');
const names = [];
const span = { setAttribute() { return span; }, setAttributes() { return span; }, setStatus() { return span; },
  addEvent() { return span; }, end() {}, isRecording: () => true, recordException() {},
  spanContext: () => ({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 }) };
const tracer = { startSpan: (name) => (names.push(name), span), startActiveSpan: () => undefined };
api.trace.setGlobalTracerProvider({ getTracer: () => tracer });
await memory.recordMessage({ speaker: 'user', content: 'traced' });
console.log(JSON.stringify({ before, after: loaded(), traced: names.length > 0 }));
await memledger.close();
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', lazy], {
      cwd: root,
    });
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true, traced: true });
  });
});
