/** `memledger rebuild`: drop a memory's read models and build them again from its log. */
import type { Command } from 'commander';
import { withMemory } from '../open.js';
import { seqText } from '../output.js';
import { progressBar } from '../progress-bar.js';

interface RebuildOptions {
  readonly progress: boolean;
}

/** Registers `rebuild` on the program. */
export function registerRebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description("drop the memory's read models and rebuild them from the log")
    .option('--no-progress', 'never show the progress bar (shown only when stderr is a terminal)')
    .addHelpText(
      'after',
      `
Read models (state, totals, recall statistics, item index, search) are derived data: the log
is the only record. They rebuild by themselves when their layout version changes or they do
not match the log; this command does it on demand.`,
    )
    .action(async (options: RebuildOptions, command: Command) => {
      await withMemory(command, async (memory) => {
        const bar = progressBar('rebuilding', options.progress);
        const started = Date.now();
        let seq: number | null;
        try {
          seq = await memory.rebuild((done, total) => bar.update(done, total));
        } finally {
          bar.stop();
        }
        const events = seq === null ? 0 : seq + 1;
        process.stdout.write(
          `rebuilt the read models of memory ${memory.memoryId}: ${events} events up to seq ${seqText(seq)} in ${Date.now() - started} ms\n`,
        );
      });
    });
}
