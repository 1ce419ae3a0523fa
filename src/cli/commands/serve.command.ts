/** `memledger serve`: the HTTP API, live stream and web page (`startServer` from src/http). */
import { Option, type Command } from 'commander';
import { storeConfigOf } from '../open.js';
import { integerAtLeast } from '../parse-options.js';

interface ServeOptions {
  readonly host: string;
  readonly port: number;
}

/** Registers `serve` on the program. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API, the live event stream and the web page')
    .addOption(
      new Option('--host <host>', 'interface to listen on').env('HOST').default('127.0.0.1'),
    )
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free port)')
        .env('PORT')
        .default(3000)
        .argParser(integerAtLeast(0, 65535)),
    )
    .addHelpText(
      'after',
      `
The store comes from the global options (--eventstore, else --db); MEMLEDGER_API_TOKEN, when
set, protects every /api route. The server serves every memory; SIGINT/SIGTERM stop it cleanly.`,
    )
    .action(async (options: ServeOptions, command: Command) => {
      // Loaded only here, so the other commands do not start up the NestJS application code.
      const { appConfigFromEnv, startServer } = await import('../../http/index.js');
      const server = await startServer({
        ...(await appConfigFromEnv()),
        store: storeConfigOf(command),
        host: options.host,
        port: options.port,
      });
      process.stdout.write(
        `memledger listening on ${server.url} (store: ${server.memledger.description})\n${server.memledger.verifiableLog.description}\n`,
      );
    });
}
