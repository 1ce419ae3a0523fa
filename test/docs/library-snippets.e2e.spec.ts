/**
 * The TypeScript examples of docs/library.md and docs/nestjs.md, as a user runs them: each block
 * saved as a file in an empty folder that has memledger installed (a link to this package: the
 * built `dist/` through package.json "exports") and, for Nest, the peer dependencies (links to
 * the same copies memledger uses), run with tsx — twice, because a quick start must still print
 * what it promises when it appends to the memory its first run left.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOnce } from '../cli/cli-harness.js';
import { codeBlocks, root } from './doc-snippets.js';

jest.setTimeout(180_000);

const TSX = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
let dir: string;

/** Runs `file` in `dir` with tsx; its stdout (a failure carries its stderr). */
function run(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', TSX, file],
      { cwd: dir, timeout: 90_000, env: { ...process.env, MEMLEDGER_MASTER_KEY: undefined } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${file} failed: ${stderr}`, { cause: error })) : resolve(stdout),
    );
  });
}

beforeAll(() => {
  buildOnce();
  dir = mkdtempSync(join(tmpdir(), 'memledger-snippets-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'memledger'), 'dir');
  for (const peer of ['@nestjs', 'reflect-metadata', 'rxjs'])
    symlinkSync(join(root, 'node_modules', peer), join(dir, 'node_modules', peer), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  // What a Nest application's tsconfig says; tsx (esbuild) reads it for the decorators.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { experimentalDecorators: true, target: 'es2022' } }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/library.md', () => {
  const [core, facade, ...others] = codeBlocks('docs/library.md', 'ts');

  it('has the two examples this spec runs', () => {
    expect(core).toContain("from 'memledger'");
    expect(facade).toContain('openMemledger');
    expect(others).toEqual([]);
  });

  it('runs the core example twice, printing what its comments promise each time', async () => {
    writeFileSync(join(dir, 'core.ts'), core!);
    // Each run writes message, recall, deletion: its recall is at seq 1, then at seq 4.
    for (const recallSeq of [1, 4]) {
      const lines = (await run('core.ts')).trimEnd().split('\n');
      expect(lines[0]).toBe('true');
      expect(
        lines
          .slice(1)
          .map((line) => line.trim())
          .join(' '),
      ).toMatch(
        new RegExp(`^\\{ count: 1, lastRecalledAt: '\\S+Z', lastRecalledSeq: ${recallSeq} \\}$`),
      );
    }
  });

  it('runs the facade example twice: recall on record, history, as-of state, erasure', async () => {
    writeFileSync(join(dir, 'facade.ts'), facade!);
    for (const _run of [1, 2]) {
      expect(await run('facade.ts')).toBe(
        'true 1\n1\nThe deploy key lives in the vault.\ntrue null\n',
      );
    }
  });
});

describe('docs/nestjs.md', () => {
  const [module, ...others] = codeBlocks('docs/nestjs.md', 'ts');
  /** Boots the documented module and erases through the command bus, as an application would. */
  const harness = `
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { DeleteContentCommand, RecordMessageCommand } from 'memledger/nest';
const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
const bus = app.get(CommandBus);
const note = await bus.execute(new RecordMessageCommand(undefined, { speaker: 'user', content: 'Forget me.' }));
const done = await bus.execute(
  new DeleteContentCommand(undefined, { targets: [note.id], reason: 'asked' }, { erase: true }),
);
console.log(done.erasure.kind, done.erasure.targets[0] === note.id);
await app.close();
`;

  it('boots the documented module, whose content can be erased', async () => {
    expect(others).toEqual([]);
    writeFileSync(join(dir, 'nest.ts'), `import 'reflect-metadata';\n${module!}${harness}`);
    for (const _run of [1, 2]) expect(await run('nest.ts')).toBe('erasure true\n');
  });
});
