/**
 * No CLI read path returns an erased item's words: `replay` (now and as of every seq, JSON and
 * text), `audit` of every id (JSON and text) and `export`, with the real binary on a sealed
 * SQLite file. A live item's canary is found by the same scans, so they can see words.
 */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import { buildOnce, idOf, runCli, tempWorkspace, writeJsonl } from '../cli/cli-harness.js';

jest.setTimeout(180_000);

const workspace = tempWorkspace();
beforeAll(() => buildOnce());
afterAll(() => workspace.cleanup());

const canary = (n: number) => `canary${n}zq`;
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

/** Six items with a canary each (messages and documents, one document name), and a recall. */
function log(): Record<string, unknown>[] {
  const items = Array.from({ length: 6 }, (_, n) =>
    n % 2 === 0
      ? {
          kind: 'message',
          id: idOf(n + 1),
          timestamp: at(n),
          speaker: 'user',
          content: `note ${canary(n + 1)} about the deploy`,
        }
      : {
          kind: 'document',
          id: idOf(n + 1),
          timestamp: at(n),
          name: `${canary(n + 1)}.md`,
          text: `runbook ${canary(n + 101)} for the deploy`,
        },
  );
  const recall = {
    kind: 'recall',
    id: idOf(50),
    timestamp: at(10),
    query: 'deploy notes',
    recalled: [idOf(1), idOf(2), idOf(3)],
  };
  return [...items, recall];
}

describe('memledger read commands after an erasure (sealed SQLite)', () => {
  it('never print an erased word, now or as of any seq, while live words still show', async () => {
    const db = join(workspace.dir, 'canary.db');
    const cli = (...args: string[]) => runCli(['--db', db, ...args]);
    expect((await cli('import', writeJsonl(join(workspace.dir, 'canary.jsonl'), log()))).code).toBe(
      0,
    );
    // Item 1 (a message, recalled) and item 2 (a document) are erased; 3..6 stay readable.
    for (const n of [1, 2]) {
      const run = await cli('erase', idOf(n), '--reason', 'subject asked to be forgotten');
      expect(run).toMatchObject({ code: 0, stderr: '' });
    }
    const erased = [canary(1), canary(2), canary(102)];
    const live = [canary(3), canary(4), canary(104)];

    const outputs: string[] = [];
    const keep = async (...args: string[]) => {
      const run = await cli(...args);
      expect(run.code).toBe(0);
      outputs.push(run.stdout);
    };
    await keep('replay', '--json');
    await keep('replay');
    const lastSeq = (JSON.parse(outputs[0]!) as { lastSeq: number }).lastSeq;
    for (let n = 0; n <= lastSeq; n++) await keep('replay', '--json', '--up-to', String(n));
    for (let n = 1; n <= 6; n++) {
      await keep('audit', idOf(n), '--json');
      await keep('audit', idOf(n));
    }
    await keep('export');

    const all = outputs.join('\n');
    for (const word of erased) expect(all).not.toContain(word);
    for (const word of live) expect(all).toContain(word);
    // The acts stay on record: the erased items are listed, as erased.
    expect(all).toContain('"erased":true');
  });
});
