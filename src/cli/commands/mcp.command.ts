/**
 * `memledger mcp`: memledger as an MCP server over stdio, for agent hosts that start it as a
 * child process. stdout carries MCP messages only: everything else (the start line, warnings,
 * errors) goes to stderr, and so does anything a library prints with `console.log`.
 */
import type { Command } from 'commander';
import { openMemledger } from '../../memory/index.js';
import { logIdentityFromEnv } from '../../tlog/index.js';
import { globalOptionsOf, withStore } from '../open.js';

/**
 * Sends `console.log`/`info`/`debug` to stderr: one stray line on stdout would corrupt the
 * protocol stream.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** Registers `mcp` on the program. */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve memledger to an agent host as an MCP server over stdio')
    .addHelpText(
      'after',
      `
The store comes from the global options (--eventstore, else --db; a new SQLite file is created);
--memory is the memory the tools use when a call names none. Tools: remember, add_document,
recall, forget (these append) and search, state_at, history (these write nothing). The server
stops when stdin closes or on SIGINT/SIGTERM.`,
    )
    .action(async (_options: unknown, command: Command) => {
      keepStdoutForProtocol();
      // Loaded only here, so the other commands do not start up the MCP SDK.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createMcpServer } = await import('../../mcp/index.js');
      const { memory, readModels } = globalOptionsOf(command);
      // Receipts are signed by the same key, under the same name, as the server's checkpoints.
      const log = await logIdentityFromEnv();
      await withStore(command, async (store) => {
        const memledger = openMemledger({ store, closeStore: false, readModels, log });
        const server = createMcpServer(memledger, { memoryId: memory });
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
        const stop = () => void server.close();
        process.stdin.once('end', stop);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await server.connect(transport);
          process.stderr.write(
            `memledger mcp: serving memory ${memory} over stdio (store: ${memledger.description})\n${memledger.verifiableLog.description}\n`,
          );
          await closed;
        } finally {
          process.stdin.off('end', stop);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          await memledger.close();
        }
      });
    });
}
