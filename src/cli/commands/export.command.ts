/**
 * `memledger export`: the memory's log as JSON Lines, one event per line with its seq and the
 * schema `version` of its kind. Lines are read through the store's key store, so content is in
 * plain text and erased content is its erasure marker: an export never holds erased words.
 * `--stored` writes each event as the store keeps it instead (sealed words sealed, its stored
 * schema version, nothing upcast): what recomputing its verifiable-log leaf needs.
 */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { MemoryError } from '../../core/index.js';
import { exportLine } from '../../store/codec.js';
import { storedExportLine } from '../stored-export.js';
import type { EventLog } from '../../store/event-log.port.js';
import { globalOptionsOf, withLog } from '../open.js';
import { writeFileAtomically, writeLine } from '../output.js';
import { memoryPath, remoteOf, type Remote } from '../remote.js';

interface ExportOptions {
  readonly out?: string;
  readonly stored?: boolean;
}

/** Registers `export` on the program. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write the memory log as JSON Lines (each event with its seq and schema version), in seq order',
    )
    .option('-o, --out <file>', 'write to this file (replaced atomically) instead of stdout')
    .option(
      '--stored',
      'write each event as the store keeps it (sealed content stays sealed, stored schema version, nothing upcast): for memledger verify --export',
    )
    .addHelpText(
      'after',
      `
The output imports back with \`memledger import\`: into an empty memory it gives the same
ids, timestamps and seqs. Each line carries "version", the schema version of its kind (a line
without one is read as version 1, the shape memledger 0.1.0 wrote). Erased content comes out
as its erasure marker (content, name, text null and "erased": true), never its words. With
--server, the server's export (GET .../export) is written instead: the key needs "read".

With --stored, each line is the event in its stored form: seq, kind, id, the schema version it
was stored in and its stored fields, sealed content as its "sealed" ciphertext (erased or not:
never the words of a sealed item). That is what its verifiable-log leaf binds, so
\`memledger verify --export <file> --checkpoint <note> --vkey <key>\` recomputes every leaf from it.
A stored-form export is read from the store itself (not with --server); it is for verification
and archives and does not import (sealed content opens only with the key store it was sealed
under).`,
    )
    .action(async (options: ExportOptions, command: Command) => {
      const remote = remoteOf(command);
      if (remote && options.stored) {
        throw new MemoryError(
          'VALIDATION_FAILED',
          'Invalid options: --stored reads the store itself; it cannot be used with --server.',
          { issues: [{ path: 'stored', message: 'cannot be used with --server' }] },
        );
      }
      if (remote) {
        const path = memoryPath(globalOptionsOf(command).memory, 'export');
        if (options.out === undefined) await copyExport(remote, path, process.stdout);
        else await writeFileAtomically(options.out, (stream) => copyExport(remote, path, stream));
        return;
      }
      await withLog(
        command,
        async (log) => {
          const write = (stream: Writable) =>
            options.stored ? writeStored(log, stream) : writeLog(log, stream);
          if (options.out === undefined) await write(process.stdout);
          else await writeFileAtomically(options.out, write);
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

async function writeStored(log: EventLog, stream: Writable): Promise<void> {
  for await (const projected of log.readProjected()) {
    await writeLine(stream, storedExportLine(projected));
  }
}
