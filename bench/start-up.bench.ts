/**
 * What loading memledger costs a fresh process (issue 29's target: `import('memledger')` <=
 * 120 ms): the built package imported by name, as a user's code does, in fresh Node processes,
 * beside baselines measured in the same run: `import('zod')` (the whole of zod, for reference: the
 * bundle carries only the part memledger uses) and `node:crypto` (Node's own floor). The
 * CLI's first answer (`memledger --help`) is measured the same way. Each figure is the
 * minimum and median over the processes: the minimum is what the code costs, the median what a
 * busy machine adds.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median, report } from './support.js';

const root = join(import.meta.dirname, '..');

/** Wall and CPU (ms) of `import(specifier)` in a fresh process. */
function importOnce(specifier: string): { wall: number; cpu: number } {
  const script = `const c = process.cpuUsage(); const t = performance.now();
await import(${JSON.stringify(specifier)});
const u = process.cpuUsage(c);
console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { wall: number; cpu: number };
}

/** Wall (ms) of a whole `memledger --help` process. */
function cliOnce(): number {
  const started = performance.now();
  execFileSync(process.execPath, [join(root, 'bin', 'memledger.js'), '--help'], { cwd: root });
  return performance.now() - started;
}

const summary = (values: readonly number[]) =>
  `${Math.round(Math.min(...values))} / ${Math.round(median(values))}`;

/** Runs `processes` fresh processes per figure, interleaved so load falls on all alike. */
export function benchStartUp(processes: number): void {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-needed.mjs')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`Building dist/ failed (${built.status}).`);
  const specifiers = ['memledger', 'zod', 'node:crypto'] as const;
  const walls = new Map<string, number[]>(specifiers.map((name) => [name, []]));
  const cpus = new Map<string, number[]>(specifiers.map((name) => [name, []]));
  const cli: number[] = [];
  for (let i = 0; i < processes; i++) {
    for (const specifier of specifiers) {
      const { wall, cpu } = importOnce(specifier);
      walls.get(specifier)!.push(wall);
      cpus.get(specifier)!.push(cpu);
    }
    cli.push(cliOnce());
  }
  const best = (name: string) => Math.min(...walls.get(name)!);
  report('start-up', {
    processes,
    "import('memledger') wall, min / median (ms; target <= 120)": summary(walls.get('memledger')!),
    "import('memledger') CPU, min / median (ms)": summary(cpus.get('memledger')!),
    "baseline: import('zod') wall, min / median (ms)": summary(walls.get('zod')!),
    "baseline: import('node:crypto') wall, min / median (ms)": summary(walls.get('node:crypto')!),
    'memledger beyond node:crypto, min (ms)': Math.round(best('memledger') - best('node:crypto')),
    'memledger --help, whole process, min / median (ms)': summary(cli),
  });
}
