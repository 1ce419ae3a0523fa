/**
 * A span per MCP tool call, per the OpenTelemetry MCP conventions: `tools/call <tool>`, kind
 * SERVER, whose parent is the context the client put in the request's `params._meta`
 * (`traceparent`, `tracestate`), else the ambient one (the HTTP request's, on `/mcp`); with both,
 * the ambient context is linked. The memory operation a tool runs (a recall's `search_memory`)
 * nests under it, so an agent's model call, its tool call and the Recall read as one trace.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
} from '@opentelemetry/api';
import { GenAiAttr, markFailed, memledgerTracer } from '../telemetry/index.js';

/** What the SDK hands a tool callback last: the request's id, session and `_meta`. */
interface ToolCallExtra {
  readonly requestId?: string | number;
  readonly sessionId?: string;
  readonly _meta?: Record<string, unknown>;
}

type ToolCallback = (...args: unknown[]) => unknown;

/** Makes every tool registered on `server` from now on run inside its own span. */
export function traceToolCalls(server: McpServer): void {
  const register = server.registerTool.bind(server) as (
    name: string,
    config: unknown,
    callback: ToolCallback,
  ) => unknown;
  const traced = (name: string, config: unknown, callback: ToolCallback) =>
    register(name, config, (...args: unknown[]) => runTool(name, callback, args));
  server.registerTool = traced as typeof server.registerTool;
}

function runTool(name: string, callback: ToolCallback, args: unknown[]): Promise<unknown> {
  const extra = (args.at(-1) ?? {}) as ToolCallExtra;
  const ambient = context.active();
  const carrier = (extra._meta ?? {}) as Record<string, string>;
  const fromClient = propagation.extract(ROOT_CONTEXT, carrier);
  const remote = trace.getSpanContext(fromClient);
  const local = trace.getSpanContext(ambient);
  const links: Link[] = remote && local ? [{ context: local }] : [];
  const attributes = {
    'mcp.method.name': 'tools/call',
    [GenAiAttr.toolName]: name,
    [GenAiAttr.operationName]: 'execute_tool',
    ...(extra.requestId === undefined ? {} : { 'jsonrpc.request.id': String(extra.requestId) }),
    ...(extra.sessionId ? { 'mcp.session.id': extra.sessionId } : {}),
  };
  return memledgerTracer().startActiveSpan(
    `tools/call ${name}`,
    { kind: SpanKind.SERVER, attributes, links },
    remote ? fromClient : ambient,
    async (span) => {
      try {
        const result = (await callback(...args)) as { isError?: boolean } | undefined;
        if (result?.isError) {
          span.setAttribute('error.type', 'tool_error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
        }
        return result;
      } catch (error) {
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
