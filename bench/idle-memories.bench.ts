/**
 * 10,000 memories opened once, then idle: CPU share of one core and RSS of a fresh process,
 * against the same process idling before it touched any memory (the same-run baseline).
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
    const { empty, touched, touchMs, open } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      empty: Idle;
      touched: Idle;
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
      target: '<= 2 % of a core, <= 100 MB over the empty process',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
