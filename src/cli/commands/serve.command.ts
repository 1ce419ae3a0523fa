/** `memledger serve`: the HTTP API, live stream and web page (`startServer` from src/http). */
import { Option, type Command } from 'commander';
import { storeConfigOf } from '../open.js';
import { integerAtLeast } from '../parse-options.js';

interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly insecure?: boolean;
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
    .addOption(
      new Option(
        '--insecure',
        'listen beyond loopback although nothing authenticates callers (warns)',
      ).env('MEMLEDGER_INSECURE'),
    )
    .addHelpText(
      'after',
      `
The store comes from the global options (--eventstore, else --db). Callers authenticate with an
access key (memledger access create), a JWT (MEMLEDGER_JWT_JWKS_URL, _ISSUER, _AUDIENCE) or the
API token (MEMLEDGER_API_TOKEN); with none of them configured the server listens on loopback
only, unless --insecure. The server serves every memory; SIGINT/SIGTERM stop it cleanly.`,
    )
    .action(async (options: ServeOptions, command: Command) => {
      // Loaded only here, so the other commands do not start up the NestJS application code.
      const { appConfigFromEnv, startServer } = await import('../../http/index.js');
      const config = await appConfigFromEnv();
      const server = await startServer({
        ...config,
        store: storeConfigOf(command),
        host: options.host,
        port: options.port,
        access: { ...config.access, ...(options.insecure ? { insecure: true } : {}) },
      });
      process.stdout.write(
        `memledger listening on ${server.url} (store: ${server.memledger.description})\n${server.authentication}\n${server.memledger.verifiableLog.description}\n`,
      );
    });
}
