/* eslint-disable @typescript-eslint/no-unsafe-assignment -- supertest bodies are untyped JSON, asserted field by field */
import request from 'supertest';
import { z } from 'zod';
import { Deletion, Document, Erasure, Message, Recall } from '../../src/core/index.js';
import { REQUEST_JSON_SCHEMA_OPTIONS } from '../../src/http/index.js';
import { openTestApp, type TestApp } from './http-app.js';

const common = { kind: true, seq: true, recordedBy: true } as const;
const filled = { id: true, timestamp: true } as const;

/**
 * The request schemas as the core defines them: the event minus kind, seq and recordedBy (the
 * server's), id and time optional (a deletion may also ask to erase its targets; a recorded
 * recall's retrieval is always the caller's own, `external`).
 */
const fromCore = {
  messages: Message.omit(common).partial(filled),
  documents: Document.omit(common).partial(filled),
  recalls: Recall.omit({ ...common, retrieval: true }).partial(filled),
  deletions: Deletion.omit(common)
    .partial(filled)
    .extend({
      erase: z
        .boolean({ message: 'must be true or false' })
        .optional()
        .describe('Also erase the targets (an Erasure appended with the Deletion, atomically).'),
    }),
  erasures: Erasure.omit(common).partial(filled),
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: unknown }> };
          parameters?: { name: string; in: string }[];
        }
      >
    >;
  };
  beforeAll(async () => {
    t = await openTestApp();
    doc = (await request(t.server).get('/api/docs-json').expect(200)).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is OpenAPI 3 and documents every route', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const m = '/api/memories/{memoryId}';
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/access/keys',
        '/api/access/keys/{keyId}/revoke',
        '/api/access/me',
        '/api/memories',
        `${m}/messages`,
        `${m}/documents`,
        `${m}/recall`,
        `${m}/recalls`,
        `${m}/deletions`,
        `${m}/erasures`,
        `${m}/state`,
        `${m}/search`,
        `${m}/recall-stats`,
        `${m}/events`,
        `${m}/events/{id}`,
        `${m}/events/stream`,
        `${m}/items/{id}/history`,
        `${m}/export`,
        `${m}/checkpoint`,
        `${m}/proofs/inclusion`,
        `${m}/proofs/consistency`,
        '/api/log-key',
      ].sort(),
    );
  });

  it.each(Object.entries(fromCore))(
    'documents the POST %s body as z.toJSONSchema of the core schema',
    (route, schema) => {
      const documented =
        doc.paths[`/api/memories/{memoryId}/${route}`]!.post!.requestBody!.content[
          'application/json'
        ]!.schema;
      const { $schema: _dialect, ...expected } = z.toJSONSchema(
        schema,
        REQUEST_JSON_SCHEMA_OPTIONS,
      );
      expect(documented).toEqual(expected);
      expect(expected).toMatchObject({ type: 'object', additionalProperties: false });
    },
  );

  it('documents the recall body from the Recall schema (query, who) plus a limit', () => {
    const documented = doc.paths['/api/memories/{memoryId}/recall']!.post!.requestBody!.content[
      'application/json'
    ]!.schema as { properties: Record<string, unknown>; required: string[] };
    const query = z.toJSONSchema(Recall.shape.query, REQUEST_JSON_SCHEMA_OPTIONS);
    expect(documented.properties.query).toEqual(
      Object.fromEntries(Object.entries(query).filter(([k]) => k !== '$schema')),
    );
    expect(documented.required).toEqual(['query']);
    expect(documented.properties.limit).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
  });

  it('documents query parameters', () => {
    const names = (path: string) =>
      doc.paths[path]!.get!.parameters!.filter((p) => p.in === 'query').map((p) => p.name);
    expect(names('/api/memories/{memoryId}/state')).toEqual(['upToSeq', 'offset', 'limit']);
    expect(names('/api/memories/{memoryId}/search')).toEqual(['q', 'upToSeq', 'limit', 'mode']);
    expect(names('/api/memories/{memoryId}/events/stream')).toEqual(['fromSeq', 'access_token']);
    expect(names('/api/memories/{memoryId}/checkpoint')).toEqual(['size']);
    expect(names('/api/memories/{memoryId}/proofs/inclusion')).toEqual(['seq', 'size']);
    expect(names('/api/memories/{memoryId}/proofs/consistency')).toEqual(['from', 'to']);
  });

  it('serves Swagger UI at /api/docs', async () => {
    const res = await request(t.server).get('/api/docs').redirects(1).expect(200);
    expect(res.text).toMatch(/swagger/i);
  });
});
