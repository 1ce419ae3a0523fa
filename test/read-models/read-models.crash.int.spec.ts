/**
 * kill -9 while the read models are being built: each chunk is applied in one transaction with
 * its checkpoint, so the file always holds a consistent prefix, and the next open catches up to
 * exactly what replay() of the log gives — nothing applied twice, nothing skipped.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  replay,
  type MemoryEvent,
  type Sequenced,
} from '../../src/core/index.js';
import { openMemledger, pageOfState } from '../../src/memory/index.js';
import { CATCH_UP_CHUNK } from '../../src/projections/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

const child = join(import.meta.dirname, '..', 'support', 'read-model-catch-up-child.ts');
const EVENTS = 9000;

/** A log of messages and documents with a recall every 10th and a deletion every 25th event. */
function mixedLog(n: number): MemoryEvent[] {
  const events: MemoryEvent[] = [];
  const visible: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 25 === 24 && visible.length > 5) {
      events.push(
        createDeletion({ targets: [visible.splice(i % visible.length, 1)[0]!], reason: 'r' }),
      );
    } else if (i % 10 === 9 && visible.length > 2) {
      events.push(createRecall({ query: 'tea', recalled: visible.slice(-2) }));
    } else {
      const text = `note ${i} about ${i % 3 === 0 ? 'tea' : 'coffee'}`;
      const event =
        i % 4 === 0
          ? createDocument({ name: `d${i}`, text })
          : createMessage({ speaker: 'u', content: text });
      events.push(event);
      visible.push(event.id);
    }
  }
  return events;
}

/** Starts the child and kills it with SIGKILL once it printed `afterLines` lines (or ended). */
function runAndKill(path: string, afterLines: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, path, 'default'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      lines.push(...chunk.split('\n').filter(Boolean));
      if (lines.length >= afterLines) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    // 'close', not 'exit': the lines printed before the end are all read by then.
    proc.on('close', () => resolve(lines));
  });
}

describe('read models killed with SIGKILL while they are built', () => {
  let dir: string;
  let base: string;
  let log: Sequenced[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memledger-rm-crash-'));
    base = join(dir, 'base.db');
    const store = openSqliteStore({ path: base, synchronous: 'NORMAL' });
    const stored = await store.log().append(mixedLog(EVENTS));
    log = [...stored];
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Kill points: on start, after the first chunk, mid-way, and near the end.
  it.each([1, 2, 3, 4, 5])(
    'trial killed after %i output lines reopens to the same answers as replay()',
    async (afterLines) => {
      const path = join(dir, `trial-${afterLines}.db`);
      copyFileSync(base, path);
      const printed = await runAndKill(path, afterLines);
      expect(printed[0]).toBe('ready');
      const memledger = openMemledger({ store: openSqliteStore({ path }) });
      try {
        const memory = await memledger.memory();
        const reached = memory.readModelSeq ?? -1;
        // The child's last printed chunk is committed; a later one may be too, never half of one.
        expect(
          (reached + 1) % CATCH_UP_CHUNK === 0 || reached + 1 === EVENTS || reached === -1,
        ).toBe(true);
        const applied = printed
          .filter((line) => line.startsWith('applied '))
          .map((line) => Number(line.slice(8)));
        expect(reached + 1).toBeGreaterThanOrEqual(Math.max(0, ...applied));
        for (const n of [-1, 1999, 2000, 4567, EVENTS - 1]) {
          const reference = replay(log.slice(0, n + 1));
          expect(await memory.statePage({ upToSeq: n })).toEqual(pageOfState(reference));
          const hits = await memory.search('tea', { asOfSeq: n, limit: 1000 });
          const expected = [...reference.visibleMessages, ...reference.visibleDocuments]
            .filter((item) =>
              ((item.kind === 'message' ? item.content : item.text) ?? '').includes('tea'),
            )
            .map((item) => item.id);
          expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
          for (const hit of hits) expect(expected).toContain(hit.id);
        }
        expect(await memory.recallStats()).toEqual(replay(log).recallStats);
      } finally {
        await memledger.close();
      }
    },
  );
});
