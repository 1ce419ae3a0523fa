/**
 * One question, one answer on every surface: recall statistics are per item, derived from the
 * Recall events, deleted and erased items included (an audit wants to know a deleted item was
 * read), and an erased item reads `[erased]`. The surfaces: `GET /state` (every page), `GET
 * /recall-stats`, `memledger replay` (JSON and text) and MCP `state_at` (structured and text),
 * on one running application and its SQLite file. The page draws `GET /state`: its rows are
 * checked in test/web/page.e2e.spec.ts.
 */
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RecallStat } from '../../src/core/index.js';
import { buildOnce, runCli } from '../cli/cli-harness.js';
import { startTestServer } from './http-app.js';

jest.setTimeout(180_000);

type Stats = Record<string, RecallStat>;
interface Stored {
  readonly id: string;
  readonly seq: number;
}

let server: Awaited<ReturnType<typeof startTestServer>>;
let mcp: Client;
const memory = 'agree';
const api = (path: string) => `${server.url}/api/memories/${memory}${path}`;

async function post<T>(path: string, body: object): Promise<T> {
  const response = await fetch(api(path), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as T;
}

/** Every page of `GET /state` (limit 1, so each list is cut) merged: the state's recall stats. */
async function statsOfStatePages(upToSeq?: number): Promise<Stats> {
  const stats: Stats = {};
  for (let offset = 0; ; offset++) {
    const query = new URLSearchParams({ offset: String(offset), limit: '1' });
    if (upToSeq !== undefined) query.set('upToSeq', String(upToSeq));
    const page = (await (await fetch(api(`/state?${query}`))).json()) as {
      recallStats: Stats;
      page: { next: Record<string, number | null> };
    };
    Object.assign(stats, page.recallStats);
    if (Object.values(page.page.next).every((next) => next === null)) return stats;
  }
}

async function stateAt(upToSeq?: number): Promise<CallToolResult> {
  return (await mcp.callTool({
    name: 'state_at',
    arguments: { memoryId: memory, limit: 100, ...(upToSeq === undefined ? {} : { upToSeq }) },
  })) as CallToolResult;
}

beforeAll(async () => {
  buildOnce();
  server = await startTestServer({}, { sealed: true });
  mcp = new Client({ name: 'answers-agree', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await mcp.close();
  await server.close();
});

describe('answers that agree across surfaces', () => {
  it('gives the same per-item recall statistics, deleted and erased items included', async () => {
    const say = (content: string) => post<Stored>('/messages', { speaker: 'user', content });
    const erased = await say('My door code is 4711.');
    const deleted = await say('I moved to Lyon last spring.');
    const kept = await say('I prefer tea to coffee.');
    await say('Never recalled at all.');
    await post('/recalls', { query: 'door', recalled: [erased.id, deleted.id] });
    await post('/recalls', { query: 'code', recalled: [erased.id, kept.id] });
    const last = await post<Stored>('/recalls', { query: 'again', recalled: [erased.id] });
    await post('/deletions', { targets: [erased.id], reason: 'asked', erase: true });
    await post('/deletions', { targets: [deleted.id], reason: 'outdated' });

    const expected = {
      [erased.id]: { count: 3, lastRecalledSeq: last.seq },
      [deleted.id]: { count: 1, lastRecalledSeq: 4 },
      [kept.id]: { count: 1, lastRecalledSeq: 5 },
    };
    const shape = (stats: Stats) =>
      Object.fromEntries(
        Object.entries(stats).map(([id, s]) => [
          id,
          { count: s.count, lastRecalledSeq: s.lastRecalledSeq },
        ]),
      );
    const recallStats = (await (await fetch(api('/recall-stats'))).json()) as Stats;
    expect(shape(recallStats)).toEqual(expected);
    expect(await statsOfStatePages()).toEqual(recallStats);
    // As of the last recall, before any deletion: the same answer.
    expect(await statsOfStatePages(last.seq)).toEqual(recallStats);

    const cli = (...args: string[]) =>
      runCli(['--db', server.dbPath, '--memory', memory, 'replay', ...args]);
    const json = await cli('--json');
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { recallStats: Stats }).recallStats).toEqual(recallStats);
    const text = (await cli()).stdout;
    expect(text).toContain('recall stats (3):');
    expect(text).toContain(`${erased.id}  3 recalls, last at seq ${last.seq}`);
    expect(text).toContain(`${deleted.id}  1 recall, last at seq 4`);

    const now = await stateAt();
    expect((now.structuredContent as { recallStats: Stats }).recallStats).toEqual(recallStats);
    const nowText = (now.content[0] as { text: string }).text;
    expect(nowText).toContain(`${erased.id}: recalled 3 times, last at seq ${last.seq}`);
    expect(nowText).toContain(`${deleted.id}: recalled 1 time, last at seq 4`);
    const before = await stateAt(last.seq);
    expect((before.structuredContent as { recallStats: Stats }).recallStats).toEqual(recallStats);
  });

  it('renders an erased item as [erased] in the CLI and MCP, never as null', async () => {
    const item = await post<Stored>('/messages', { speaker: 'user', content: 'Erase me.' });
    const { erasure } = await post<{ erasure: Stored }>('/deletions', {
      targets: [item.id],
      reason: 'gone',
      erase: true,
    });
    const replay = await runCli([
      '--db',
      server.dbPath,
      '--memory',
      memory,
      'replay',
      '--up-to',
      String(item.seq),
    ]);
    expect(replay.stdout).toContain(`${item.id}  message   user: [erased]`);
    expect(replay.stdout).not.toMatch(/null/);

    const asOf = await stateAt(item.seq);
    expect((asOf.content[0] as { text: string }).text).not.toContain('null');
    const history = (await mcp.callTool({
      name: 'history',
      arguments: { memoryId: memory, id: item.id },
    })) as CallToolResult;
    const historyText = (history.content[0] as { text: string }).text;
    expect(historyText).toContain(`message ${item.id}, seq ${item.seq}`);
    expect(historyText).toContain('[erased]');
    expect(historyText).toContain(`erasure ${erasure.id}`);
    expect(historyText).toContain('requested by not given');
  });
});
