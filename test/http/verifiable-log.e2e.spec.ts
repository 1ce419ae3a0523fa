/**
 * The verifiable log over HTTP on a real server (loopback, random port, SQLite file): the log
 * key and checkpoint as text, proofs as JSON in the shapes docs/leaf-v1.md fixes, each checked
 * with memledger/verify as an outside verifier would; the monitor (`runMonitor`) run against it
 * as it grows; errors with their codes; an unsigned server says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigner, runMonitor, type LogIdentity } from '../../src/tlog/index.js';
import {
  SIGNATURE_TYPE,
  parseCheckpoint,
  parseConsistencyProof,
  parseInclusionProof,
  parseVerifierKey,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
} from '../../src/verify/index.js';
import { startTestServer } from './http-app.js';

const signer = generateSigner('http.test');
const identity: LogIdentity = { name: signer.name, signer, witnesses: [] };

type Server = Awaited<ReturnType<typeof startTestServer>>;

async function post(server: Server, memory: string, content: string) {
  const response = await fetch(`${server.url}/api/memories/${memory}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speaker: 'user', content }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; seq: number };
}

async function get(server: Server, path: string) {
  const response = await fetch(`${server.url}${path}`);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    response,
    text: await response.text(),
  };
}

describe('verifiable log over HTTP', () => {
  let server: Server;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer({ memory: { log: identity } });
    dir = mkdtempSync(join(tmpdir(), 'memledger-monitor-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the log key, a signed checkpoint and proofs that verify with memledger/verify', async () => {
    const key = await get(server, '/api/log-key');
    expect([key.status, key.type, key.text]).toEqual([
      200,
      'text/plain; charset=utf-8',
      `${signer.vkey}\n`,
    ]);
    const log = await parseVerifierKey(key.text.trim(), SIGNATURE_TYPE.ed25519);
    const written = [];
    for (let i = 0; i < 6; i++) written.push(await post(server, 'team-a', `fact ${i}`));

    const head = await get(server, '/api/memories/team-a/checkpoint');
    expect([head.status, head.type, head.response.headers.get('memledger-signed')]).toEqual([
      200,
      'text/plain; charset=utf-8',
      'true',
    ]);
    const six = await verifyCheckpoint(head.text, { log, origin: 'http.test/team-a' });
    expect(six.size).toBe(6);
    for (const event of written) {
      const proof = await get(
        server,
        `/api/memories/team-a/proofs/inclusion?seq=${event.seq}&size=6`,
      );
      expect(proof.type).toMatch(/^application\/json/);
      const leaf = await verifyLeafInclusion(parseInclusionProof(JSON.parse(proof.text)), six);
      expect(leaf).toMatchObject({ memory: 'team-a', id: event.id, seq: event.seq });
    }
    const four = await verifyCheckpoint(
      (await get(server, '/api/memories/team-a/checkpoint?size=4')).text,
      { log },
    );
    const consistency = await get(server, '/api/memories/team-a/proofs/consistency?from=4&to=6');
    await verifyCheckpointConsistency(
      four,
      six,
      parseConsistencyProof(JSON.parse(consistency.text)),
    );
  });

  it('passes the monitor while the log grows, saving each checkpoint it verified', async () => {
    const state = join(dir, 'team-b.note');
    const monitor = () =>
      runMonitor({ url: server.url, memory: 'team-b', statePath: state, vkey: signer.vkey });
    await post(server, 'team-b', 'first');
    expect((await monitor()).ok).toBe(true);
    await post(server, 'team-b', 'second');
    await post(server, 'team-b', 'third');
    const report = await monitor();
    expect(report).toMatchObject({ ok: true, evidence: [] });
    expect(report.lines.join('\n')).toContain(
      'grew from size 1 to 3; the consistency proof verifies',
    );
  });

  it('answers bad sizes, seqs and queries with their codes', async () => {
    await post(server, 'team-c', 'only');
    const cases: [string, number, string][] = [
      ['/api/memories/team-c/checkpoint?size=2', 404, 'TREE_SIZE_PAST_HEAD'],
      ['/api/memories/team-c/checkpoint?size=x', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/checkpoint?size=-1', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/checkpoint?sizes=1', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/proofs/inclusion', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/proofs/inclusion?seq=1&size=1', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/proofs/inclusion?seq=0&size=5', 404, 'TREE_SIZE_PAST_HEAD'],
      ['/api/memories/team-c/proofs/consistency?from=1&to=0', 400, 'VALIDATION_FAILED'],
      ['/api/memories/team-c/proofs/consistency?to=1', 400, 'VALIDATION_FAILED'],
      [`/api/memories/${'x'.repeat(129)}/checkpoint`, 400, 'INVALID_MEMORY_ID'],
    ];
    for (const [path, status, code] of cases) {
      const answer = await get(server, path);
      expect([path, answer.status, (JSON.parse(answer.text) as { code: string }).code]).toEqual([
        path,
        status,
        code,
      ]);
    }
  });

  it('serves the empty tree of a memory without events', async () => {
    const answer = await get(server, '/api/memories/nothing-yet/checkpoint');
    const checkpoint = parseCheckpoint(answer.text.slice(0, answer.text.indexOf('\n\n') + 1));
    expect(checkpoint).toMatchObject({ origin: 'http.test/nothing-yet', size: 0 });
  });
});

describe('unsigned verifiable log over HTTP', () => {
  it('serves unsigned checkpoint text and proofs, and no log key', async () => {
    const server = await startTestServer({
      memory: { log: { name: 'plain.test', witnesses: [] } },
    });
    try {
      await post(server, 'm', 'hello');
      const key = await get(server, '/api/log-key');
      expect([key.status, (JSON.parse(key.text) as { code: string }).code]).toEqual([
        404,
        'LOG_KEY_NOT_CONFIGURED',
      ]);
      const answer = await get(server, '/api/memories/m/checkpoint');
      expect(answer.response.headers.get('memledger-signed')).toBe('false');
      const checkpoint = parseCheckpoint(answer.text);
      expect(checkpoint).toMatchObject({ origin: 'plain.test/m', size: 1 });
      const proof = await get(server, '/api/memories/m/proofs/inclusion?seq=0&size=1');
      await verifyLeafInclusion(parseInclusionProof(JSON.parse(proof.text)), checkpoint);
    } finally {
      await server.close();
    }
  });
});
