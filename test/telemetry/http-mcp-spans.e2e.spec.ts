/**
 * Spans through the application, with the real OpenTelemetry SDK (in-memory exporter): a recall
 * and a deletion over HTTP carrying a `traceparent` nest under the caller's span (HTTP server
 * span, then the memory operation, then the store append); over MCP the tool call's span sits
 * between them, and a `traceparent` in the call's `params._meta` is its parent. No content, and
 * no query text, on any span.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import request from 'supertest';
import { startTestServer } from '../http/http-app.js';
import { allAttributeText, onlySpan, registerTestOtel, type TestOtel } from './otel-sdk.js';

const CONTENT = 'Remember: the backup passphrase is tangerine-otter.';
const QUERY = 'backup passphrase';
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

let otel: TestOtel;
beforeAll(() => {
  otel = registerTestOtel();
});
afterAll(async () => {
  await otel.shutdown();
});

/** The spans, once one named `name` has ended (server spans end after the response is sent). */
async function spansWith(name: string): Promise<ReadableSpan[]> {
  for (let tries = 0; tries < 100; tries++) {
    if (otel.spans().some((span) => span.name === name)) return otel.spans();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(
    `No span ${name}: ${otel
      .spans()
      .map((s) => s.name)
      .join(', ')}`,
  );
}

/** `span`'s parent among `spans`. */
function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  return spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
}

describe('spans of HTTP requests', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let messageId: string;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    const res = await request(server.url)
      .post('/api/memories/ops/messages')
      .send({ speaker: 'user', content: CONTENT })
      .expect(201);
    messageId = (res.body as { id: string }).id;
    otel.reset();
  });

  it('puts the recall under the caller traceparent with the Recall seq and ids', async () => {
    const res = await request(server.url)
      .post('/api/memories/ops/recall')
      .set('traceparent', TRACEPARENT)
      .send({ query: QUERY })
      .expect(201);
    const { recall } = res.body as { recall: { id: string; seq: number; recalled: string[] } };

    const spans = await spansWith('POST /api/memories/:memoryId/recall');
    const http = onlySpan(spans, 'POST /api/memories/:memoryId/recall');
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.spanContext().traceId).toBe(CALLER_TRACE);
    expect(http.parentSpanContext).toMatchObject({ spanId: CALLER_SPAN, isRemote: true });
    expect(http.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/memories/:memoryId/recall',
      'http.response.status_code': 201,
    });
    const memory = onlySpan(spans, 'search_memory');
    expect(parentOf(spans, memory)).toBe(http);
    expect(memory.attributes).toMatchObject({
      'gen_ai.operation.name': 'search_memory',
      'gen_ai.memory.store.id': 'ops',
      'memledger.event.seq': recall.seq,
      'memledger.event.id': recall.id,
      'memledger.recall.recalled_ids': [messageId],
    });
    expect(recall.recalled).toEqual([messageId]);
    const append = spans.find((s) => s.name === 'memledger.store.append');
    expect(append && parentOf(spans, append)).toBe(memory);
    expect(append?.attributes['memledger.store']).toBe('sqlite');
    const text = allAttributeText(spans);
    expect(text).not.toContain('tangerine');
    expect(text).not.toContain(QUERY);
  });

  it('puts the deletion under the caller traceparent with its targets', async () => {
    const res = await request(server.url)
      .post('/api/memories/ops/deletions')
      .set('traceparent', TRACEPARENT)
      .send({ targets: [messageId], reason: 'asked to forget' })
      .expect(201);
    const deletion = res.body as { id: string; seq: number };

    const spans = await spansWith('POST /api/memories/:memoryId/deletions');
    const http = onlySpan(spans, 'POST /api/memories/:memoryId/deletions');
    expect(http.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    const memory = onlySpan(spans, 'delete_memory');
    expect(parentOf(spans, memory)).toBe(http);
    expect(memory.spanContext().traceId).toBe(CALLER_TRACE);
    expect(memory.attributes).toMatchObject({
      'gen_ai.operation.name': 'delete_memory',
      'gen_ai.memory.record.id': messageId,
      'memledger.deletion.targets': [messageId],
      'memledger.event.id': deletion.id,
      'memledger.event.seq': deletion.seq,
    });
    expect(allAttributeText(spans)).not.toContain('tangerine');
  });

  it('answers with a request id, the one the client sent when it sent one', async () => {
    const chosen = await request(server.url)
      .get('/api/memories')
      .set('X-Request-Id', 'req-42')
      .expect(200);
    const made = await request(server.url).get('/api/memories').expect(200);
    expect(chosen.headers['x-request-id']).toBe('req-42');
    expect(made.headers['x-request-id']).toMatch(/^[\da-f-]{36}$/);
  });
});

describe('spans of MCP tool calls', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: Client;
  let messageId: string;
  beforeAll(async () => {
    server = await startTestServer();
    client = new Client({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { traceparent: TRACEPARENT } },
      }),
    );
    const remembered = await client.callTool({
      name: 'remember',
      arguments: { speaker: 'user', content: CONTENT },
    });
    messageId = (remembered.structuredContent as { event: { id: string } }).event.id;
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });
  beforeEach(() => otel.reset());

  it('puts the recall tool call and its Recall under the HTTP traceparent', async () => {
    const result = await client.callTool({ name: 'recall', arguments: { query: QUERY } });
    const recall = (result.structuredContent as { recall: { id: string; seq: number } }).recall;

    const spans = await spansWith('POST /mcp');
    const tool = onlySpan(spans, 'tools/call recall');
    expect(tool.kind).toBe(SpanKind.SERVER);
    expect(tool.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'recall',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(parentOf(spans, tool)).toBe(onlySpan(spans, 'POST /mcp'));
    expect(onlySpan(spans, 'POST /mcp').parentSpanContext?.spanId).toBe(CALLER_SPAN);
    const memory = onlySpan(spans, 'search_memory');
    expect(parentOf(spans, memory)).toBe(tool);
    expect(memory.spanContext().traceId).toBe(CALLER_TRACE);
    expect(memory.attributes).toMatchObject({
      'memledger.event.seq': recall.seq,
      'memledger.event.id': recall.id,
      'memledger.recall.recalled_ids': [messageId],
    });
    const text = allAttributeText(spans);
    expect(text).not.toContain('tangerine');
    expect(text).not.toContain(QUERY);
  });

  it('takes the parent from params._meta.traceparent and links the HTTP span', async () => {
    const agentTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const agentSpan = '00f067aa0ba902b7';
    await client.callTool({
      name: 'forget',
      arguments: { targets: [messageId], reason: 'the agent was told to forget' },
      _meta: { traceparent: `00-${agentTrace}-${agentSpan}-01` },
    });

    const spans = await spansWith('POST /mcp');
    const tool = onlySpan(spans, 'tools/call forget');
    expect(tool.spanContext().traceId).toBe(agentTrace);
    expect(tool.parentSpanContext).toMatchObject({ spanId: agentSpan, isRemote: true });
    expect(tool.links.map((link) => link.context.spanId)).toEqual([
      onlySpan(spans, 'POST /mcp').spanContext().spanId,
    ]);
    const memory = onlySpan(spans, 'delete_memory');
    expect(parentOf(spans, memory)).toBe(tool);
    expect(memory.attributes['memledger.deletion.targets']).toEqual([messageId]);
  });
});
