/** `memledger export`: the memory's log as JSON Lines, one event (with its seq) per line. */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { EventLog } from '../../store/event-log.port.js';
import { withLog } from '../open.js';
import { writeFileAtomically, writeLine } from '../output.js';

interface ExportOptions {
  readonly out?: string;
}

/** Registers `export` on the program. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('write the memory log as JSON Lines (each event with its seq), in seq order')
    .option('-o, --out <file>', 'write to this file (replaced atomically) instead of stdout')
    .addHelpText(
      'after',
      `
The output imports back with \`memledger import\`: into an empty memory it gives the same
ids, timestamps and seqs.`,
    )
    .action(async (options: ExportOptions, command: Command) => {
      await withLog(
        command,
        async (log) => {
          if (options.out === undefined) {
            await writeLog(log, process.stdout);
          } else {
            await writeFileAtomically(options.out, (stream) => writeLog(log, stream));
          }
        },
        { mustExist: true },
      );
    });
}

async function writeLog(log: EventLog, stream: Writable): Promise<void> {
  for await (const event of log.read()) await writeLine(stream, JSON.stringify(event));
}
