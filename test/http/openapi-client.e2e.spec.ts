/**
 * The served OpenAPI document generates a working client: `openapi-typescript` turns it into
 * types, `tsc` checks a scenario written against them with `openapi-fetch` (including lines that
 * must not compile), the scenario runs against the listening app, and `@redocly/cli lint` finds
 * no error in the document. Everything runs offline, in a temp folder.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import type { RunningServer } from '../../src/http/index.js';
import { RESPONSE_SCHEMAS } from '../../src/http/response-schemas.js';
import { startTestServer } from './http-app.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const modules = join(root, 'node_modules');

/** The scenario a client author would write: every call typed by the generated `paths`. */
const SCENARIO = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Event = components['schemas']['Event'];

const client = createClient<paths>({ baseUrl: process.argv[2]! });
const memoryId = 'client-scenario';
const path = { memoryId };

function must<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(\`\${result.response.status}: \${JSON.stringify(result.error)}\`);
  }
  return result.data;
}

const message = must(
  await client.POST('/api/memories/{memoryId}/messages', {
    params: { path },
    body: { speaker: 'user', content: 'The deploy key rotates on Fridays.' },
  }),
);
const written: number = message.seq;
const recall = must(
  await client.POST('/api/memories/{memoryId}/recall', {
    params: { path },
    body: { query: 'deploy key', limit: 5 },
  }),
);
const recalledTexts: string[] = recall.items.map((item) =>
  item.kind === 'message' ? item.content : item.text,
);
const deletion = must(
  await client.POST('/api/memories/{memoryId}/deletions', {
    params: { path },
    body: { targets: [message.id], reason: 'a secret', requestedBy: 'ops' },
  }),
);
const asOfWrite = must(
  await client.GET('/api/memories/{memoryId}/state', {
    params: { path, query: { upToSeq: written, limit: 10 } },
  }),
);
const now = must(await client.GET('/api/memories/{memoryId}/state', { params: { path } }));
const history = must(
  await client.GET('/api/memories/{memoryId}/items/{id}/history', {
    params: { path: { memoryId, id: message.id } },
  }),
);
const stats = must(await client.GET('/api/memories/{memoryId}/recall-stats', { params: { path } }));
const events: Event[] = must(
  await client.GET('/api/memories/{memoryId}/events', { params: { path, query: { fromSeq: 0 } } }),
);
const missing = await client.GET('/api/memories/{memoryId}/events/{id}', {
  params: { path: { memoryId, id: '00000000-0000-4000-8000-000000000000' } },
});
const missingCode: string | undefined = missing.error?.code;
const exported: string = must(
  await client.GET('/api/memories/{memoryId}/export', { params: { path }, parseAs: 'text' }),
);

/** Never called: each line must fail to compile, or the types are too loose. */
export async function misuses(): Promise<void> {
  // @ts-expect-error upToSeq is an integer, not a string
  await client.GET('/api/memories/{memoryId}/state', { params: { path, query: { upToSeq: '3' } } });
  // @ts-expect-error a message needs its content
  await client.POST('/api/memories/{memoryId}/messages', { params: { path }, body: { speaker: 'u' } });
  const { data } = await client.GET('/api/memories/{memoryId}/state', { params: { path } });
  // @ts-expect-error a state page has no such list
  void data?.visibleItems;
  // @ts-expect-error lastSeq may be null
  const seq: number = data!.lastSeq;
  void seq;
}

console.log(
  JSON.stringify({
    message,
    recall,
    recalledTexts,
    deletion,
    asOfWrite,
    now,
    history,
    stats,
    events,
    missing: { status: missing.response.status, code: missingCode },
    exported,
  }),
);
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    // The generated schema.ts is a .ts file, so it is checked; only node_modules is skipped.
    skipLibCheck: true,
    noEmit: true,
  },
  files: ['schema.ts', 'scenario.ts'],
};

/** Lint with the recommended rules, and nothing that reaches the network. */
const REDOCLY_CONFIG = 'extends:\n  - recommended\ntelemetry: off\n';
const OFFLINE_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
};

/** Runs a command, answering its output whether it succeeds or fails. */
async function attempt(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { ...options, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('a client generated from the OpenAPI document', () => {
  let server: RunningServer;
  let dir: string;
  let document: unknown;

  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'memledger-openapi-'));
    // The scenario and tsc resolve openapi-fetch, tsx and @types/node from the repository.
    symlinkSync(modules, join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    document = await (await fetch(`${server.url}/api/docs-json`)).json();
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document, null, 2));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('types, compiles and runs a scenario: write, recall, delete, state as of a seq, history, stats', async () => {
    const types = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
    writeFileSync(join(dir, 'schema.ts'), types);
    writeFileSync(join(dir, 'scenario.ts'), SCENARIO);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));

    const tsc = await attempt(
      process.execPath,
      [join(modules, 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')],
      { cwd: dir },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);

    const scenario = await attempt(
      process.execPath,
      ['--import', 'tsx', join(dir, 'scenario.ts'), server.url],
      { cwd: dir },
    );
    expect(scenario.stderr).toBe('');
    const out = JSON.parse(scenario.stdout) as {
      message: { id: string; seq: number };
      recall: { recall: { id: string }; items: { id: string }[] };
      recalledTexts: string[];
      deletion: { id: string; seq: number };
      asOfWrite: { lastSeq: number; visibleMessages: { id: string }[] };
      now: { visibleMessages: unknown[]; deleted: Record<string, { id: string }> };
      history: { recalls: { recallId: string }[]; deletedBy: { id: string } | null };
      stats: Record<string, { count: number }>;
      events: { kind: string }[];
      missing: { status: number; code: string };
      exported: string;
    };
    const id = out.message.id;
    expect(out.recall.items.map((item) => item.id)).toEqual([id]);
    expect(out.recalledTexts).toEqual(['The deploy key rotates on Fridays.']);
    expect(out.asOfWrite.lastSeq).toBe(out.message.seq);
    expect(out.asOfWrite.visibleMessages.map((m) => m.id)).toEqual([id]);
    expect(out.now.visibleMessages).toEqual([]);
    expect(out.now.deleted[id]?.id).toBe(out.deletion.id);
    expect(out.history.recalls.map((r) => r.recallId)).toEqual([out.recall.recall.id]);
    expect(out.history.deletedBy?.id).toBe(out.deletion.id);
    expect(out.stats[id]?.count).toBe(1);
    expect(out.events.map((e) => e.kind)).toEqual(['message', 'recall', 'deletion']);
    expect(out.missing).toEqual({ status: 404, code: 'EVENT_NOT_FOUND' });
    const lines = out.exported.trimEnd().split('\n');
    // Each line is an Event plus the schema version of its kind.
    const parsedLines = lines.map((line) => {
      const { version, ...event } = JSON.parse(line) as { version: unknown };
      return { version, kind: RESPONSE_SCHEMAS.Event.parse(event).kind };
    });
    expect(parsedLines).toEqual([
      { version: 3, kind: 'message' },
      { version: 3, kind: 'recall' },
      { version: 2, kind: 'deletion' },
    ]);
  }, 180_000);

  it('passes @redocly/cli lint with no error', async () => {
    writeFileSync(join(dir, 'redocly.yaml'), REDOCLY_CONFIG);
    const lint = await attempt(
      process.execPath,
      [
        join(modules, '@redocly', 'cli', 'bin', 'cli.js'),
        'lint',
        '--config',
        join(dir, 'redocly.yaml'),
        '--format',
        'json',
        join(dir, 'openapi.json'),
      ],
      { cwd: dir, env: OFFLINE_ENV },
    );
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; location: { pointer: string }[] }[];
    };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(lint.code).toBe(0);
    // Every /api operation documents 401 and 403, so none lacks a 4xx answer.
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  }, 120_000);
});
