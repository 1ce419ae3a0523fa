/**
 * A long catch-up says in the log what it builds, for which memory, and when it is done (the
 * first checkpoint of a log written by the bare store builds its whole tree); a short one says
 * nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger } from '../../src/memory/index.js';
import { NOTICE_FROM_EVENTS, noticedProgress } from '../../src/projections/catch-up-notices.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { message } from '../support/events.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-notices-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('catch-up notices', () => {
  it('says nothing for a backlog shorter than the threshold, and passes progress on', () => {
    const said: string[] = [];
    const seen: number[] = [];
    const progress = noticedProgress(
      (text) => said.push(text),
      { memoryId: 'm', names: ['tree'] },
      { from: 0, head: NOTICE_FROM_EVENTS - 2 },
      (applied) => seen.push(applied),
    );
    progress?.(NOTICE_FROM_EVENTS - 1, NOTICE_FROM_EVENTS - 1);
    expect(said).toEqual([]);
    expect(seen).toEqual([NOTICE_FROM_EVENTS - 1]);
  });

  it('names the projections and the memory when the first checkpoint builds the tree of a long log, then says it is done', async () => {
    const path = join(dir, 'bare.db');
    const bare = openSqliteStore({ path, synchronous: 'NORMAL' });
    const log = bare.log('long');
    const total = NOTICE_FROM_EVENTS + 5;
    for (let at = 0; at < total; at += 1000)
      await log.append(
        Array.from({ length: Math.min(1000, total - at) }, (_, i) => message(`m${at + i}`)),
      );
    await bare.close();
    const said: string[] = [];
    const memledger = openMemledger({
      store: openSqliteStore({ path }),
      onNotice: (text) => said.push(text),
    });
    try {
      const checkpoint = await (await memledger.memory('long')).checkpoint();
      expect(checkpoint.size).toBe(total);
      const building = said.filter((text) => text.includes('of memory long from its log'));
      expect(building[0]).toBe(
        `memledger: building tree of memory long from its log: ${total.toLocaleString('en')} events to apply.`,
      );
      expect(building.at(-1)).toMatch(
        new RegExp(`: done, ${total.toLocaleString('en')} events in [0-9.]+ s\\.$`),
      );
    } finally {
      await memledger.close();
    }
  });
});
