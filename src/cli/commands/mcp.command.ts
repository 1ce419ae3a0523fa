/**
 * `memledger mcp`: memledger as an MCP server over stdio, for agent hosts that start it as a
 * child process. stdout carries MCP messages only: everything else (the start line, warnings,
 * errors) goes to stderr, and so does anything a library prints with `console.log`.
 *
 * It runs with an access key (`--key`, or `MEMLEDGER_KEY`: the key's grant and principal, and it
 * stops when the key is revoked), as a local principal with the rights given on the command line
 * (`--principal`, `--rights`, `--memories`), or, with neither, with every right and nobody on
 * record.
 */
import type { Command } from 'commander';
import {
  keyPrincipal,
  localPrincipal,
  parsePatternList,
  parseRightsList,
  UNAUTHENTICATED,
  type GrantStore,
  type Principal,
} from '../../access/index.js';
import { MemoryError } from '../../core/index.js';
import { openMemledger } from '../../memory/index.js';
import { logIdentityFromEnv } from '../../tlog/index.js';
import { cliEmbeddings, globalOptionsOf, openGrantsOf, withStore } from '../open.js';

interface McpOptions {
  readonly principal?: string;
  readonly rights?: string;
  readonly memories: string;
}

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

/** Who the tools act for, and the grant store that can revoke it (when a key was given). */
async function principalOf(
  command: Command,
  options: McpOptions,
): Promise<{ principal: Principal; grants?: GrantStore }> {
  const key = globalOptionsOf(command).key?.trim();
  if (key && options.principal !== undefined) {
    throw new MemoryError('VALIDATION_FAILED', 'Pass --key or --principal, not both.', {
      issues: [{ path: '--principal', message: 'must not be given with --key' }],
    });
  }
  if (key) {
    const grants = await openGrantsOf(command);
    const found = grants.keyOfSecret(key);
    if (found === undefined) {
      await grants.close();
      throw new MemoryError(
        'UNAUTHORIZED',
        'The access key is not valid here (unknown or revoked).',
      );
    }
    return { principal: keyPrincipal(found), grants };
  }
  if (options.principal !== undefined) {
    if (options.rights === undefined) {
      throw new MemoryError('VALIDATION_FAILED', '--principal needs --rights.', {
        issues: [{ path: '--rights', message: 'must be given with --principal' }],
      });
    }
    const grant = {
      memories: parsePatternList(options.memories, '--memories'),
      rights: parseRightsList(options.rights, '--rights'),
    };
    return { principal: localPrincipal(options.principal, [grant]) };
  }
  return { principal: UNAUTHENTICATED };
}

/** Registers `mcp` on the program. */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve memledger to an agent host as an MCP server over stdio')
    .option('--principal <name>', 'act as this local principal (recorded as recordedBy)')
    .option('--rights <list>', "the local principal's rights: read,recall,write,delete,erase")
    .option('--memories <patterns>', "the local principal's memories: user-42,team-*,*", '*')
    .addHelpText(
      'after',
      `
The store comes from the global options (--eventstore, else --db; a new SQLite file is created);
--memory is the memory the tools use when a call names none. Tools: remember, add_document,
recall, forget (these append) and search, state_at, history (these write nothing). With --key
(or MEMLEDGER_KEY) the tools reach only the key's grant, events record its principal, and the
server stops when the key is revoked; with --principal and --rights, the same for a local
principal. The server stops when stdin closes or on SIGINT/SIGTERM.`,
    )
    .action(async (options: McpOptions, command: Command) => {
      keepStdoutForProtocol();
      // Loaded only here, so the other commands do not start up the MCP SDK.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createMcpServer } = await import('../../mcp/index.js');
      const { memory, readModels } = globalOptionsOf(command);
      const { principal, grants } = await principalOf(command, options);
      // Receipts are signed by the same key, under the same name, as the server's checkpoints.
      const log = await logIdentityFromEnv();
      try {
        await withStore(command, async (store) => {
          const memledger = openMemledger({
            store,
            closeStore: false,
            readModels,
            log,
            // A long-running server: new content is embedded in the background.
            ...cliEmbeddings(true),
          });
          const server = createMcpServer(memledger, { memoryId: memory, principal });
          const transport = new StdioServerTransport();
          const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
          const stop = () => void server.close();
          const stopRevoked = grants?.onRevoked((keyId) => {
            if (keyId !== principal.keyId) return;
            process.stderr.write('memledger mcp: the access key was revoked; stopping\n');
            process.exitCode = 1;
            stop();
          });
          process.stdin.once('end', stop);
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          try {
            await server.connect(transport);
            const who = principal.recordedBy?.principal ?? 'nobody authenticated';
            process.stderr.write(
              `memledger mcp: serving memory ${memory} over stdio as ${who} (store: ${memledger.description})\n${memledger.verifiableLog.description}\n`,
            );
            await closed;
          } finally {
            stopRevoked?.();
            process.stdin.off('end', stop);
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            await memledger.close();
          }
        });
      } finally {
        await grants?.close();
      }
    });
}
