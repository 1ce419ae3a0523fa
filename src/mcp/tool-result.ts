/**
 * Tool results: structured content with a short text rendering, and rejections as tool errors
 * (`isError: true`) that carry the memledger `code`, so the model can read why and correct itself
 * instead of the call failing as a protocol error.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isMemoryError } from '../core/index.js';

/** The `_meta` key under which a tool error carries the memledger error. */
export const ERROR_META_KEY = 'memledger/error';

/** A successful result: `structured` as `structuredContent`, `text` for hosts that show text. */
export function toolResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text }] };
}

/**
 * A memledger rejection as a tool error: the text reads `error [CODE]: message` (as the command
 * line prints it, with every failing field of a validation), and `_meta["memledger/error"]` holds
 * `{ code, message, issues }` for programs. Anything else is rethrown, for the SDK to report.
 */
export function toolError(error: unknown): CallToolResult {
  if (!isMemoryError(error)) throw error;
  const issues = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
  const text = [`error [${error.code}]: ${error.message}`, ...issues.map((i) => `  ${i}`)].join(
    '\n',
  );
  return {
    isError: true,
    content: [{ type: 'text', text }],
    _meta: {
      [ERROR_META_KEY]: { code: error.code, message: error.message, issues: [...error.issues] },
    },
  };
}

/** Runs a tool's work and turns a memledger rejection into a tool error. */
export async function runTool(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return toolError(error);
  }
}
