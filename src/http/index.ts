/**
 * The memledger application over HTTP: REST API, Server-Sent Events, OpenAPI and the web page.
 * `startServer(config)` is what `npm start` and the CLI's `serve` run.
 */
export { createApp, startServer, type RunningServer } from './create-app.js';
export { appConfigFromEnv, httpConfigFromEnv, readModelsFromEnv } from './http-config.env.js';
export {
  DEFAULT_BODY_LIMIT,
  resolveHttpConfig,
  type AccessConfig,
  type HttpConfig,
  type ResolvedHttpConfig,
} from './http-config.js';
export {
  STATUS_OF_CODE,
  toApiError,
  type ApiErrorBody,
  type ApiErrorCode,
} from './memory-error.filter.js';
export { HTTP_ERROR_CODES, HttpApiError, type HttpErrorCode } from './http-error.js';
export { REQUEST_BODIES } from './request-schemas.js';
export { REQUEST_JSON_SCHEMA_OPTIONS, requestJsonSchema, DOCS_PATH } from './openapi.js';
