/**
 * The few Express request and response members the HTTP layer uses, over Node's own types
 * (the package does not depend on `@types/express`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An Express request. */
export interface HttpRequest extends IncomingMessage {
  /** The path without the query string. */
  readonly path: string;
  /** The URL as received, for logs. */
  readonly originalUrl: string;
  /** The parsed query string. */
  readonly query: Readonly<Record<string, unknown>>;
}

/** An Express response. */
export interface HttpResponse extends ServerResponse {
  status(code: number): this;
  json(body: unknown): this;
  set(headers: Record<string, string>): this;
}
