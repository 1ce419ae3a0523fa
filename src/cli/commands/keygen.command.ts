/**
 * `memledger keygen`: a new Ed25519 key for the verifiable log — the log's checkpoint key, or
 * with `--witness` a witness's cosignature key. The private key goes to a new file (mode 0600,
 * never replacing one); the verifier key line, which others trust it by, goes to stdout.
 */
import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { generateSigner, writeKeyFile } from '../../tlog/index.js';
import { SIGNATURE_TYPE } from '../../verify/index.js';

interface KeygenOptions {
  readonly out: string;
  readonly name?: string;
  readonly witness?: boolean;
}

/** Registers `keygen` on the program. */
export function registerKeygenCommand(program: Command): void {
  program
    .command('keygen')
    .description(
      'write a new signing key for checkpoints (or, with --witness, for cosignatures) and print its verifier key',
    )
    .requiredOption(
      '--out <file>',
      'the private key file to create (mode 0600; an existing file is never replaced)',
    )
    .addOption(
      new Option(
        '--name <name>',
        'the key name: the log name, first part of every origin <name>/<memory id> (no spaces or "+")',
      ).env('MEMLEDGER_LOG_NAME'),
    )
    .option('--witness', 'a witness key (C2SP cosignature/v1) instead of a log key')
    .addHelpText(
      'after',
      `
Prints the verifier key line, <name>+<key id>+<base64 key>, on stdout: give it to whoever must
check your checkpoints (memledger checkpoint --vkey) or to witnesses (memledger witness --log).
Start the app with MEMLEDGER_LOG_KEY=<file>. The default name is MEMLEDGER_LOG_NAME, else
<host name>/memledger (<host name>/witness with --witness).`,
    )
    .action((options: KeygenOptions) => {
      const type = options.witness ? SIGNATURE_TYPE.cosignature : SIGNATURE_TYPE.ed25519;
      const name =
        options.name ?? `${hostname() || 'localhost'}/${options.witness ? 'witness' : 'memledger'}`;
      const signer = generateSigner(name, type);
      writeKeyFile(options.out, signer);
      process.stderr.write(
        `wrote the private ${options.witness ? 'witness' : 'log'} key ${signer.name}+${signer.keyId} to ${options.out} (mode 0600); its verifier key follows\n`,
      );
      process.stdout.write(`${signer.vkey}\n`);
    });
}
