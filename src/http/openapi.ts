/**
 * The OpenAPI 3 document (`/api/docs-json`, Swagger UI at `/api/docs`). Request bodies and query
 * parameters are generated from the zod schemas in `request-schemas.ts` (themselves derived from
 * the core schemas) with `z.toJSONSchema`, so nothing is written twice.
 */
import { type INestApplication } from '@nestjs/common';
import { ApiBody, ApiQuery, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { z } from 'zod';

/** Where the Swagger UI is served; the JSON document is at `${DOCS_PATH}-json`. */
export const DOCS_PATH = 'api/docs';

type JsonSchema = Record<string, unknown>;
type OverrideContext = Parameters<NonNullable<z.core.ToJSONSchemaParams['override']>>[0];

/**
 * JSON carries none of two things the core schemas allow in-process: a `Date` (timestamps
 * arrive as strings with an offset) and `readonly` (which OpenAPI reads as "response only").
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
}

/** The options every request schema of the document is generated with. */
export const REQUEST_JSON_SCHEMA_OPTIONS = {
  io: 'input',
  target: 'openapi-3.0',
  unrepresentable: 'any',
  override: overrideForJson,
} as const satisfies z.core.ToJSONSchemaParams;

/** The OpenAPI schema of a request body or parameter: the zod schema's input side. */
export function requestJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, REQUEST_JSON_SCHEMA_OPTIONS);
  return json;
}

/** Documents a JSON request body generated from `schema`. */
export const ApiJsonBody = (schema: z.ZodType, description: string) =>
  ApiBody({ description, required: true, schema: requestJsonSchema(schema) });

/** Documents each key of a query-string object schema as a query parameter. */
export function ApiQueryFrom(schema: z.ZodObject, descriptions: Record<string, string> = {}) {
  const json = requestJsonSchema(schema) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
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

/** Serves the OpenAPI document and Swagger UI. */
export function setupOpenApi(app: INestApplication, version: string): void {
  const config = new DocumentBuilder()
    .setTitle('memledger')
    .setDescription(
      'An auditable, event-sourced memory for LLM agents: an append-only log of messages, ' +
        'documents, recalls and deletions. Errors answer `{ code, message, issues? }`.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'MEMLEDGER_API_TOKEN, when set' })
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: `${DOCS_PATH}-json` });
}
