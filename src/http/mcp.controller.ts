/**
 * The MCP server over Streamable HTTP at `/mcp`, stateless: each POST carries JSON-RPC messages
 * and gets its answer as JSON, through a server and transport made for that request alone, so no
 * session state lives in the process. The access guard covers this route like `/api`: each POST
 * authenticates (401 before any tool runs), and its server is bound to that principal, so a tool
 * naming a memory outside the grant is a tool error `FORBIDDEN`, what it appends records the
 * principal, and a revoked key's next request is refused. GET (a server-to-client stream) and DELETE (ending a session) have
 * nothing to serve without sessions and answer 405, as the transport specification allows.
 */
import { All, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Memledger } from '../memory/index.js';
import { createMcpServer } from '../mcp/index.js';
import { MEMLEDGER } from '../nest.js';
import { principalOf, type AuthenticatedRequest } from './access.guard.js';
import type { HttpResponse as Response } from './http-types.js';

/** The JSON-RPC error body of a method this stateless endpoint does not serve. */
const METHOD_NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST.' },
  id: null,
};

/** `/mcp`: MCP over Streamable HTTP, every memory of the application's memledger. */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(@Inject(MEMLEDGER) private readonly memledger: Memledger) {}

  /** One POST of JSON-RPC messages (already parsed by the JSON body parser). */
  @Post()
  async post(
    @Req() request: AuthenticatedRequest & { body?: unknown },
    @Res() response: Response,
  ): Promise<void> {
    const server = createMcpServer(this.memledger, { principal: principalOf(request) });
    // No sessionIdGenerator: stateless mode.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  }

  /** Any other method (GET, DELETE...): no sessions, so nothing to stream or end. */
  @All()
  notAllowed(@Res() response: Response): void {
    response.status(405).set({ Allow: 'POST' }).json(METHOD_NOT_ALLOWED);
  }
}
