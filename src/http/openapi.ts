/**
 * The OpenAPI 3 document (`/api/docs-json`, Swagger UI at `/api/docs`). Request bodies, query and
 * path parameters are generated from the zod schemas in `request-schemas.ts`, and response bodies
 * (`components.schemas`) from those in `response-schemas.ts`, all with `z.toJSONSchema` and all
 * derived from the core schemas, so nothing is written twice.
 */
import { applyDecorators, type INestApplication } from '@nestjs/common';
import {
  ApiBody,
  ApiParam,
  ApiQuery,
  ApiResponse,
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { z } from 'zod';
import { HttpAccess } from './http-access.js';
import { EventIdParam, MemoryIdParam } from './request-schemas.js';
import { codesOf, type ErrorStatus } from './error.schemas.js';
import { RESPONSE_SCHEMAS, type ResponseSchemaName } from './response-schemas.js';

/** Where the Swagger UI is served; the JSON document is at `${DOCS_PATH}-json`. */
export const DOCS_PATH = 'api/docs';

type JsonSchema = Record<string, unknown>;
type OverrideContext = Parameters<NonNullable<z.core.ToJSONSchemaParams['override']>>[0];

/**
 * JSON carries none of two things the core schemas allow in-process: a `Date` (timestamps
 * arrive as strings with an offset) and `readonly` (which OpenAPI reads as "response only");
 * and an erased field (always `null`) is documented so that generated clients keep it.
 */
function overrideForJson({ zodSchema, jsonSchema }: OverrideContext): void {
  const def = zodSchema._zod.def;
  if (def.type === 'union' && def.options.some((option) => option._zod.def.type === 'custom')) {
    const json = jsonSchema as JsonSchema;
    delete json.anyOf;
    Object.assign(json, {
      type: 'string',
      format: 'date-time',
      description: 'An ISO-8601 time with an explicit UTC offset; stored normalized to UTC (Z).',
    });
  }
  if (def.type === 'readonly') delete (jsonSchema as JsonSchema).readOnly;
  // An erased field is always null. Typed clients drop a property whose only value is null
  // (openapi-fetch's `Readable` strips keys whose non-null type is `never`), so it is
  // documented as a nullable string that can hold no text.
  if (def.type === 'null') {
    const json = jsonSchema as JsonSchema;
    delete json.enum;
    Object.assign(json, {
      type: 'string',
      nullable: true,
      maxLength: 0,
      description: 'Always null: the words were erased.',
    });
  }
  // A nullable reference (`allOf: [$ref]`) needs its type beside `nullable` in OpenAPI 3.0.
  if (def.type === 'nullable' && def.innerType._zod.def.type === 'object') {
    (jsonSchema as JsonSchema).type ??= 'object';
  }
}

/**
 * The options every request and response schema of the document is generated with. The input
 * side describes the JSON a schema accepts, which is what a body on the wire is.
 */
export const REQUEST_JSON_SCHEMA_OPTIONS = {
  io: 'input',
  target: 'openapi-3.0',
  unrepresentable: 'any',
  override: overrideForJson,
} as const satisfies z.core.ToJSONSchemaParams;

/** The OpenAPI schema of a request body or path parameter: the zod schema's input side. */
export function requestJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, REQUEST_JSON_SCHEMA_OPTIONS);
  return json;
}

/** Documents a JSON request body generated from `schema`. */
export const ApiJsonBody = (schema: z.ZodType, description: string) =>
  ApiBody({ description, required: true, schema: requestJsonSchema(schema) });

/**
 * Documents each key of a query-string object schema as a query parameter. A query value is
 * text on the wire; the schema's output side gives its meaning (`upToSeq` is an integer, sent
 * as decimal digits, which is how OpenAPI serializes an integer parameter).
 */
export function ApiQueryFrom(schema: z.ZodObject, descriptions: Record<string, string> = {}) {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    ...REQUEST_JSON_SCHEMA_OPTIONS,
    io: 'output',
  }) as { $schema?: string; properties?: Record<string, JsonSchema>; required?: string[] };
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, property]) =>
      ApiQuery({
        name,
        required: json.required?.includes(name) ?? false,
        schema: property,
        ...(descriptions[name] === undefined ? {} : { description: descriptions[name] }),
      }),
    ),
  );
}

/** Documents the `:memoryId` path parameter. */
export const ApiMemoryIdParam = () =>
  ApiParam({
    name: 'memoryId',
    description: 'The memory: 1 to 128 of A-Z a-z 0-9 . _ - (the default memory is `default`).',
    schema: requestJsonSchema(MemoryIdParam),
  });

/** Documents the `:id` path parameter (an event id). */
export const ApiEventIdParam = () =>
  ApiParam({
    name: 'id',
    description: 'An event id (UUID).',
    schema: requestJsonSchema(EventIdParam),
  });

const ref = (name: ResponseSchemaName) => ({ $ref: `#/components/schemas/${name}` });

/** Documents a JSON response whose body is the response schema `name`. */
export const ApiJsonResponse = (status: 200 | 201, name: ResponseSchemaName, description: string) =>
  ApiResponse({ status, description, content: { 'application/json': { schema: ref(name) } } });

/** Documents a streamed text response (`text/event-stream`, `application/x-ndjson`). */
export const ApiTextResponse = (mediaType: string, description: string) =>
  ApiResponse({
    status: 200,
    description,
    content: { [mediaType]: { schema: { type: 'string', description } } },
  });

/** The error response of `status`: `{ code, message, issues? }` with the codes of that status. */
function errorResponse(status: ErrorStatus) {
  return {
    description: `${codesOf(status).join(', ')}: \`{ code, message, issues? }\`.`,
    content: { 'application/json': { schema: ref(`Error${status}`) } },
  };
}

/**
 * Documents the error responses a route can answer besides 500 and 503 (which every route can:
 * a failure, an unavailable or closed store); 401 and 403 are added to every `/api` route.
 */
export const ApiErrorResponses = (...statuses: ErrorStatus[]) =>
  applyDecorators(
    ...[...statuses, 500 as const, 503 as const].map((status) =>
      ApiResponse({ status, ...errorResponse(status) }),
    ),
  );

/** The response schemas as `components.schemas`, generated from {@link RESPONSE_SCHEMAS}. */
export function responseComponents(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(RESPONSE_SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    ...REQUEST_JSON_SCHEMA_OPTIONS,
    uri: (id) => `#/components/schemas/${id}`,
  });
  // OpenAPI 3.0 schema objects have no `$id` (nor `$schema`).
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $id: _id, $schema: _dialect, ...json }]) => [id, json]),
  );
}

/**
 * Every `/api` operation takes a bearer credential (an access key, a JWT or the API token) and
 * documents 401 and 403: a server answers them once anything authenticates callers, which a
 * first key granted can switch on while it runs. Until then requests need none (`{}` in
 * `security`: anonymous allowed).
 */
function applySecurity(document: OpenAPIObject, required: boolean): void {
  document.security = required ? [{ bearer: [] }] : [{ bearer: [] }, {}];
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/api')) continue;
    for (const method of ['get', 'post'] as const) {
      const operation = operations[method];
      if (operation === undefined) continue;
      operation.responses['401'] = errorResponse(401);
      operation.responses['403'] = errorResponse(403);
    }
  }
}

/** Serves the OpenAPI document and Swagger UI. */
export function setupOpenApi(app: INestApplication, version: string): void {
  const required = app.get(HttpAccess).authenticator.required;
  const builder = new DocumentBuilder()
    .setTitle('memledger')
    .setDescription(
      'An auditable, event-sourced memory for LLM agents: an append-only log of messages, ' +
        'documents, recalls and deletions. Errors answer `{ code, message, issues? }`. ' +
        'Callers authenticate with `Authorization: Bearer` and an access key (`mlk_...`), a JWT ' +
        'or the API token; a refusal is 403 `FORBIDDEN` naming the missing right, decided from ' +
        'the grant alone, so a memory outside it answers the same whether it exists or not.',
    )
    .setVersion(version)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/', 'This server')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'An access key (mlk_...), a JWT from the identity provider, or the API token.',
    });
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (_controller, method) => method,
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...responseComponents() },
  };
  applySecurity(document, required);
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: `${DOCS_PATH}-json` });
}
