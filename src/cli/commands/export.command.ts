/**
 * `memledger export`: the memory's log as JSON Lines, one event per line with its seq and the
 * schema `version` of its kind. Lines are read through the store's key store, so content is in
 * plain text and erased content is its erasure marker: an export never holds erased words.
 */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { exportLine } from '../../store/codec.js';
import type { EventLog } from '../../store/event-log.port.js';
import { globalOptionsOf, withLog } from '../open.js';
import { writeFileAtomically, writeLine } from '../output.js';
import { memoryPath, remoteOf, type Remote } from '../remote.js';

interface ExportOptions {
  readonly out?: string;
}

/** Registers `export` on the program. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write the memory log as JSON Lines (each event with its seq and schema version), in seq order',
    )
    .option('-o, --out <file>', 'write to this file (replaced atomically) instead of stdout')
    .addHelpText(
      'after',
      `
The output imports back with \`memledger import\`: into an empty memory it gives the same
ids, timestamps and seqs. Each line carries "version", the schema version of its kind (a line
without one is read as version 1, the shape memledger 0.1.0 wrote). Erased content comes out
as its erasure marker (content, name, text null and "erased": true), never its words. With
--server, the server's export (GET .../export) is written instead: the key needs "read".`,
    )
    .action(async (options: ExportOptions, command: Command) => {
      const remote = remoteOf(command);
      if (remote) {
        const path = memoryPath(globalOptionsOf(command).memory, 'export');
        if (options.out === undefined) await copyExport(remote, path, process.stdout);
        else await writeFileAtomically(options.out, (stream) => copyExport(remote, path, stream));
        return;
      }
      await withLog(
        command,
        async (log) => {
          if (options.out === undefined) {
            await writeLog(log, process.stdout);
          } else {
            await writeFileAtomically(options.out, (stream) => writeLog(log, stream));
          }
        },
        { mustExist: true, mustHaveEvents: true },
      );
    });
}

/** The server's export (the same JSON Lines), copied as it arrives. */
async function copyExport(remote: Remote, path: string, stream: Writable): Promise<void> {
  const body = await remote.stream(path);
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
  }
}

async function writeLog(log: EventLog, stream: Writable): Promise<void> {
  for await (const event of log.read()) {
    await writeLine(stream, exportLine(event));
  }
}
