/**
 * `memledger witness`: a C2SP tlog-witness. It cosigns a trusted log's checkpoints only when
 * they extend the last one it cosigned for their origin, keeps that per origin in a SQLite
 * state file, and serves `POST /add-checkpoint` until SIGINT or SIGTERM.
 */
import type { Command } from 'commander';
import { Witness, WitnessState, loadKeyFile, startWitnessServer } from '../../tlog/index.js';
import { SIGNATURE_TYPE, parseVerifierKey } from '../../verify/index.js';
import { integerAtLeast } from '../parse-options.js';

interface WitnessOptions {
  readonly keyFile: string;
  readonly state: string;
  readonly log: string[];
  readonly port: number;
  readonly host: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Registers `witness` on the program. */
export function registerWitnessCommand(program: Command): void {
  program
    .command('witness')
    .description(
      "run a witness that cosigns a log's checkpoints only when they are consistent (C2SP tlog-witness)",
    )
    .requiredOption('--key-file <file>', 'the witness key file (memledger keygen --witness)')
    .requiredOption(
      '--state <file>',
      'the SQLite file holding the last checkpoint cosigned per origin',
    )
    .requiredOption('--log <verifier key>', 'a log key to trust (repeat for several logs)', collect)
    .option('--port <port>', 'port to listen on (0: any free port)', integerAtLeast(0, 65535), 7380)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .addHelpText(
      'after',
      `
A log key named N covers the origins N/<anything> (memledger's origins are <log name>/<memory
id>). Answers: 200 with the cosignature, 409 with the size it last cosigned (text/x.tlog.size),
422 for a proof that does not verify (inconsistent history, recorded as evidence), 403 for a
bad or missing log signature, 404 for an unknown origin, 400 for a malformed request.
GET /<sha256 hex of origin>/checkpoint serves the last note it cosigned.`,
    )
    .action(async (options: WitnessOptions) => {
      const key = loadKeyFile(options.keyFile, SIGNATURE_TYPE.cosignature);
      const logs = await Promise.all(
        options.log.map((line) => parseVerifierKey(line.trim(), SIGNATURE_TYPE.ed25519)),
      );
      const state = WitnessState.open(options.state);
      const server = await startWitnessServer(
        new Witness({ key, logs, state }),
        options.host,
        options.port,
      ).catch((error: unknown) => {
        state.close();
        throw error;
      });
      process.stdout.write(`memledger witness ${key.name} listening on ${server.url}\n`);
      process.stdout.write(`cosignature key: ${key.vkey}\n`);
      process.stdout.write(`trusted logs: ${logs.map((log) => log.name).join(', ')}\n`);
      const stop = () => {
        void server.close().then(() => state.close());
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
