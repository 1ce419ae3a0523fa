/**
 * The `memledger` command line. `bin/memledger.js` imports this module and calls
 * {@link main}; the exit status goes through `process.exitCode`, so open handles close normally.
 */
import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_MEMORY_ID, isMemoryError } from '../core/index.js';
import { registerAccessCommand } from './commands/access.command.js';
import { registerAuditCommand } from './commands/audit.command.js';
import { registerCheckpointCommand } from './commands/checkpoint.command.js';
import { registerEraseCommand } from './commands/erase.command.js';
import { registerExportCommand } from './commands/export.command.js';
import { registerImportCommand } from './commands/import.command.js';
import { registerKeygenCommand } from './commands/keygen.command.js';
import { registerMcpCommand } from './commands/mcp.command.js';
import { registerRebuildCommand } from './commands/rebuild.command.js';
import { registerReplayCommand } from './commands/replay.command.js';
import { registerSearchCommands } from './commands/search.command.js';
import { registerServeCommand } from './commands/serve.command.js';
import { registerVerifyCommand } from './commands/verify.command.js';
import { registerWitnessCommand } from './commands/witness.command.js';
import { endQuietlyOnClosedOutput, isClosedOutput } from './output.js';

/** Builds the program: global options and one subcommand per file in `commands/`. */
export function buildProgram(): Command {
  const program = new Command('memledger')
    .description('memledger: an auditable, event-sourced memory for LLM agents')
    .addOption(
      new Option('--db <path>', 'SQLite database file')
        .env('MEMLEDGER_DB')
        .default('./data/memledger.db'),
    )
    .addOption(
      new Option(
        '--eventstore <url>',
        'EventStoreDB/KurrentDB connection string; wins over --db (a --db typed on the command line beats EVENTSTORE_URL from the environment)',
      ).env('EVENTSTORE_URL'),
    )
    .addOption(
      new Option(
        '--read-models <path>',
        'read-model file for stores that cannot hold them (EventStoreDB); SQLite keeps them in its own file',
      )
        .env('MEMLEDGER_READ_MODELS')
        .default('./data/read-models.db'),
    )
    .option('--memory <id>', 'the memory to work on', DEFAULT_MEMORY_ID)
    .addOption(
      new Option(
        '--server <url>',
        'work through this running server instead of the store (audit, export, erase, access)',
      ).env('MEMLEDGER_SERVER'),
    )
    .addOption(
      new Option(
        '--key <secret>',
        'the access key (mlk_...), JWT or token to authenticate with (--server, mcp, checkpoint)',
      ).env('MEMLEDGER_KEY'),
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerServeCommand(program);
  registerImportCommand(program);
  registerExportCommand(program);
  registerReplayCommand(program);
  registerAuditCommand(program);
  registerSearchCommands(program);
  registerEraseCommand(program);
  registerVerifyCommand(program);
  registerRebuildCommand(program);
  registerMcpCommand(program);
  registerKeygenCommand(program);
  registerWitnessCommand(program);
  registerCheckpointCommand(program);
  registerAccessCommand(program);
  return program;
}

/**
 * Runs the command line on `argv` (`process.argv`: node, script, then arguments) and sets
 * `process.exitCode`: 0 on success, 1 on an error, 2 when `verify` finds a violation.
 */
export async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedOutput();
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

/**
 * Reports an error on stderr in one line and returns the exit code. memledger errors print as
 * `error [CODE]: message`; system errors (a missing file) as `error [ENOENT]: ...`. A stack trace
 * is printed only for unexpected errors with `MEMLEDGER_DEBUG=1`.
 */
export function reportError(error: unknown): number {
  // commander has already printed its own message (or the help, for --help and --version).
  if (error instanceof CommanderError) return error.exitCode;
  // `memledger export | head`: the reader took what it wanted and closed the pipe.
  if (isClosedOutput(error)) return 0;
  if (isMemoryError(error)) {
    process.stderr.write(`error [${error.code}]: ${error.message}\n`);
    return 1;
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error${typeof code === 'string' ? ` [${code}]` : ''}: ${message}\n`);
  if (process.env.MEMLEDGER_DEBUG === '1' && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  return 1;
}
