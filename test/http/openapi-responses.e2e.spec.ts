/* eslint-disable @typescript-eslint/no-unsafe-assignment -- supertest bodies are untyped JSON, parsed by the response schemas */
/**
 * Real answers of every route parse with the zod schema the OpenAPI document names for that
 * route and status, and the document's components are `z.toJSONSchema` of those schemas: the
 * documented responses cannot drift from what the routes send.
 */
import request from 'supertest';
import type { z } from 'zod';
import { responseComponents } from '../../src/http/openapi.js';
import { RESPONSE_SCHEMAS, type ResponseSchemaName } from '../../src/http/response-schemas.js';
import { openTestApp, type TestApp } from './http-app.js';

interface Operation {
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<
    string,
    { content?: Record<string, { schema: { $ref?: string; type?: string } }> }
  >;
}
interface Document {
  security: unknown[];
  servers: { url: string }[];
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  paths: Record<string, Record<'get' | 'post', Operation>>;
}

const m = '/api/memories/{memoryId}';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('documented responses', () => {
  let t: TestApp;
  let doc: Document;

  /** The zod schema the document names for `method path` answering `status` as JSON. */
  function documented(method: 'get' | 'post', path: string, status: number): z.ZodType {
    const ref =
      doc.paths[path]?.[method].responses[status]?.content?.['application/json']?.schema.$ref;
    expect(ref).toMatch(/^#\/components\/schemas\//);
    const name = ref!.replace('#/components/schemas/', '') as ResponseSchemaName;
    return RESPONSE_SCHEMAS[name];
  }

  /** Sends the request and parses its body with the schema documented for its status. */
  async function answer(method: 'get' | 'post', path: string, url: string, body?: object) {
    const res =
      method === 'get'
        ? await request(t.server).get(url)
        : await request(t.server).post(url).send(body);
    const result = documented(method, path, res.status).safeParse(res.body);
    expect(result.error?.issues ?? []).toEqual([]);
    return { status: res.status, body: res.body };
  }

  beforeAll(async () => {
    // Sealed, as `npm start` runs: erasures and erased items are among the real answers.
    t = await openTestApp({}, { sealed: true });
    doc = (await request(t.server).get('/api/docs-json').expect(200)).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('generates components.schemas from the response zod schemas', () => {
    expect(doc.components.schemas).toEqual(responseComponents());
  });

  it('documents every route: a 2xx body, 400 where input is checked, 500 and 503', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        const statuses = Object.keys(operation.responses);
        expect(statuses.some((s) => s.startsWith('2'))).toBe(true);
        expect(statuses).toEqual(expect.arrayContaining(['500', '503']));
        // The routes that take no input to check: the list, the key list and revocation, and the log key.
        const unchecked = [
          '/api/memories',
          '/api/access/keys',
          '/api/access/keys/{keyId}/revoke',
          '/api/log-key',
        ];
        if (!unchecked.includes(path)) expect(statuses).toContain('400');
      }
    }
  });

  it('validates real answers of every route, successes and errors', async () => {
    const url = '/api/memories/docs';
    const message = await answer('post', `${m}/messages`, `${url}/messages`, {
      speaker: 'user',
      content: 'The deploy key rotates on Fridays.',
      retainUntil: '2030-01-01T00:00:00+02:00',
    });
    expect(message.status).toBe(201);
    const id = (message.body as { id: string }).id;
    const document = await answer('post', `${m}/documents`, `${url}/documents`, {
      name: 'runbook.md',
      text: 'Rotate the deploy key.',
    });
    expect(document.status).toBe(201);
    expect(
      (await answer('post', `${m}/recall`, `${url}/recall`, { query: 'deploy key' })).status,
    ).toBe(201);
    const recorded = await answer('post', `${m}/recalls`, `${url}/recalls`, {
      query: 'by hand',
      recalled: [id],
    });
    expect(recorded.status).toBe(201);
    const deletion = await answer('post', `${m}/deletions`, `${url}/deletions`, {
      targets: [id],
      reason: 'a secret',
    });
    expect(deletion.status).toBe(201);
    const erasure = await answer('post', `${m}/erasures`, `${url}/erasures`, {
      targets: [id],
      reason: 'a secret, forgotten',
    });
    expect(erasure.status).toBe(201);
    const both = await answer('post', `${m}/deletions`, `${url}/deletions`, {
      targets: [(document.body as { id: string }).id],
      reason: 'forget the runbook',
      erase: true,
    });
    expect(both.status).toBe(201);

    const reads: [string, string, number][] = [
      ['/api/memories', '/api/memories', 200],
      [`${m}/state`, `${url}/state`, 200],
      [`${m}/state`, `${url}/state?upToSeq=1&limit=1`, 200],
      [`${m}/search`, `${url}/search?q=deploy`, 200],
      [`${m}/recall-stats`, `${url}/recall-stats`, 200],
      [`${m}/events`, `${url}/events?fromSeq=1`, 200],
      [`${m}/events/{id}`, `${url}/events/${id}`, 200],
      [`${m}/items/{id}/history`, `${url}/items/${id}/history`, 200],
      [`${m}/state`, `${url}/state?upToSeq=x`, 400],
      [`${m}/events`, `/api/memories/${'x'.repeat(129)}/events`, 400],
      [`${m}/events/{id}`, `${url}/events/${UNKNOWN_ID}`, 404],
      [`${m}/items/{id}/history`, `${url}/items/${UNKNOWN_ID}/history`, 404],
      [`${m}/proofs/inclusion`, `${url}/proofs/inclusion?seq=0&size=2`, 200],
      [`${m}/proofs/consistency`, `${url}/proofs/consistency?from=1&to=3`, 200],
      [`${m}/proofs/inclusion`, `${url}/proofs/inclusion?seq=x`, 400],
      [`${m}/proofs/inclusion`, `${url}/proofs/inclusion?seq=0&size=999`, 404],
      [`${m}/proofs/consistency`, `${url}/proofs/consistency?from=2&to=1`, 400],
      [`${m}/proofs/consistency`, `${url}/proofs/consistency?from=0&to=999`, 404],
      [`${m}/recalls`, `${url}/recalls`, 200],
      [`${m}/recalls`, `${url}/recalls?principal=nobody&from=2020-01-01T00:00:00Z&limit=5`, 200],
      [`${m}/recalls`, `${url}/recalls?from=yesterday`, 400],
      ['/api/access/me', '/api/access/me?memory=docs', 200],
      ['/api/access/me', '/api/access/me?memory=..', 400],
      ['/api/access/keys', '/api/access/keys', 200],
    ];
    for (const [path, target, status] of reads) {
      expect([target, (await answer('get', path, target)).status]).toEqual([target, status]);
    }

    const refusals: [string, object, number][] = [
      ['messages', { speaker: 'user' }, 400],
      ['deletions', { targets: [id], reason: 'again' }, 409],
      ['erasures', { targets: [id], reason: 'again' }, 409],
      ['erasures', { targets: [], reason: 'none' }, 400],
      ['recalls', { query: 'q', recalled: [UNKNOWN_ID] }, 409],
    ];
    for (const [route, body, status] of refusals) {
      const res = await answer('post', `${m}/${route}`, `${url}/${route}`, body);
      expect([route, res.status]).toEqual([route, status]);
    }
  });

  it('documents integer query parameters as integers', () => {
    const query = (path: string) =>
      Object.fromEntries(
        doc.paths[path]!.get.parameters!.filter((p) => p.in === 'query').map((p) => [
          p.name,
          p.schema.type,
        ]),
      );
    expect(query(`${m}/state`)).toEqual({
      upToSeq: 'integer',
      offset: 'integer',
      limit: 'integer',
    });
    expect(query(`${m}/search`)).toEqual({
      q: 'string',
      upToSeq: 'integer',
      limit: 'integer',
      mode: 'string',
    });
    expect(query(`${m}/events`)).toEqual({ fromSeq: 'integer', limit: 'integer' });
    expect(query(`${m}/events/stream`)).toEqual({ fromSeq: 'integer', access_token: 'string' });
    expect(query(`${m}/checkpoint`)).toEqual({ size: 'integer' });
    expect(query(`${m}/proofs/inclusion`)).toEqual({ seq: 'integer', size: 'integer' });
    expect(query(`${m}/proofs/consistency`)).toEqual({ from: 'integer', to: 'integer' });
  });

  it('documents the export as JSON Lines and the stream as Server-Sent Events', () => {
    const media = (path: string) => Object.keys(doc.paths[path]!.get.responses['200']!.content!);
    expect(media(`${m}/export`)).toEqual(['application/x-ndjson']);
    expect(media(`${m}/events/stream`)).toEqual(['text/event-stream']);
  });

  it('documents the checkpoint and the log key as text, with their error answers', async () => {
    const media = (path: string) => Object.keys(doc.paths[path]!.get.responses['200']!.content!);
    expect(media(`${m}/checkpoint`)).toEqual(['text/plain']);
    expect(media('/api/log-key')).toEqual(['text/plain']);
    const checkpoint = await request(t.server).get('/api/memories/docs-text/checkpoint');
    expect([checkpoint.status, checkpoint.type]).toEqual([200, 'text/plain']);
    const errors: [string, string, number][] = [
      [`${m}/checkpoint`, '/api/memories/docs-text/checkpoint?size=5', 404],
      [`${m}/checkpoint`, '/api/memories/docs-text/checkpoint?size=x', 400],
      ['/api/log-key', '/api/log-key', 404],
    ];
    for (const [path, url, status] of errors) {
      const res = await answer('get', path, url);
      expect([url, res.status]).toEqual([url, status]);
    }
  });

  it('declares a relative server, bearer security with anonymous allowed while nothing authenticates, and 401 and 403 on every route', () => {
    expect(doc.servers).toEqual([{ url: '/', description: 'This server' }]);
    expect(doc.security).toEqual([{ bearer: [] }, {}]);
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
  });

  it('requires the bearer credential and documents 401 on every route when a token is set', async () => {
    const secured = await openTestApp({ apiToken: 'openapi-secret' });
    try {
      const body = (await request(secured.server).get('/api/docs-json').expect(200))
        .body as Document;
      expect(body.security).toEqual([{ bearer: [] }]);
      expect(body.components.securitySchemes).toEqual({
        bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      });
      for (const operations of Object.values(body.paths)) {
        for (const operation of Object.values(operations)) {
          expect(operation.responses['401']?.content?.['application/json']?.schema.$ref).toBe(
            '#/components/schemas/Error401',
          );
        }
      }
      const res = await request(secured.server).get('/api/memories').expect(401);
      expect(RESPONSE_SCHEMAS.Error401.parse(res.body).code).toBe('UNAUTHORIZED');
    } finally {
      await secured.close();
    }
  });
});
