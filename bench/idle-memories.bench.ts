/**
 * 10,000 memories opened once, then idle: CPU share of one core and RSS of a fresh process,
 * against the same process idling before it touched any memory (the same-run baseline), after
 * the idle window and again after three times it (V8 returns the heap it grew while touching
 * only after a while idle: the later figure is what an idle server keeps).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { report } from './support.js';

const run = promisify(execFile);
const child = join(import.meta.dirname, 'idle-memories.child.ts');

interface Idle {
  readonly cpuShare: number;
  readonly rss: number;
}

export async function benchIdleMemories(count = 10_000, idleMs = 10_000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-idle-'));
  try {
    const { stdout } = await run(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        child,
        join(dir, 'idle.db'),
        String(count),
        String(idleMs),
      ],
      { maxBuffer: 1 << 20 },
    );
    const { empty, touched, settled, heapUsed, heapTotal, touchMs, open } = JSON.parse(
      stdout.trim().split('\n').at(-1)!,
    ) as {
      empty: Idle;
      touched: Idle;
      settled: Idle;
      heapUsed: number;
      heapTotal: number;
      touchMs: number;
      open: number;
    };
    const mb = (bytes: number) => bytes / (1 << 20);
    report('idle-memories', {
      memories: count,
      'idle window s': idleMs / 1000,
      'memories still open (LRU cap 1000)': open,
      'touching them took s': touchMs / 1000,
      'empty process: CPU % of a core (baseline)': empty.cpuShare * 100,
      'empty process: RSS MB (baseline)': mb(empty.rss),
      'after touching: CPU % of a core when idle': touched.cpuShare * 100,
      'after touching: RSS MB': mb(touched.rss),
      'RSS over the empty process MB': mb(touched.rss - empty.rss),
      [`idle ${(3 * idleMs) / 1000} s: CPU % of a core`]: settled.cpuShare * 100,
      [`idle ${(3 * idleMs) / 1000} s: RSS over the empty process MB`]: mb(settled.rss - empty.rss),
      [`idle ${(3 * idleMs) / 1000} s: V8 heap used / committed MB`]: `${mb(heapUsed).toFixed(0)} / ${mb(heapTotal).toFixed(0)}`,
      target: '<= 2 % of a core, <= 100 MB over the empty process',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
