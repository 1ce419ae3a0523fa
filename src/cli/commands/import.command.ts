/**
 * `memledger import <file.jsonl>`: validate the whole file, dry-run the append guard, then
 * append in batches. Each batch is atomic; a crash mid-import leaves a prefix of whole batches,
 * and running the same import again is safe: events already in the log (same id, same content)
 * are recognised and not written twice.
 */
import type { Command } from 'commander';
import { LIMITS, MemoryError } from '../../core/index.js';
import type { EventLog } from '../../store/event-log.port.js';
import {
  formatProblem,
  readImportFile,
  type ImportLine,
  type LineProblem,
} from '../import-file.js';
import { planImport } from '../import-plan.js';
import { withLog } from '../open.js';
import { seqText } from '../output.js';
import { progressBar } from '../progress-bar.js';
import { integerAtLeast } from '../parse-options.js';

interface ImportOptions {
  readonly batchSize: number;
  readonly progress: boolean;
}

/** At most this many bad lines are listed; the count of the rest follows. */
const MAX_LISTED = 20;

/** Registers `import` on the program. */
export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description(
      'append the events of a JSON Lines file (one event per line, wire format) to the memory',
    )
    .argument('<file>', 'JSON Lines file, e.g. the output of `memledger export`')
    .option(
      '--batch-size <n>',
      `events per atomic append (1 to ${LIMITS.batch})`,
      integerAtLeast(1),
      500,
    )
    .option('--no-progress', 'never show the progress bar (shown only when stderr is a terminal)')
    .addHelpText(
      'after',
      `
Every line is checked first (JSON, the event schema, then the append guard against the log):
one bad line is reported as "line N: <path>: <rule>" and nothing is written (exit 1).
A "seq" field is ignored: the store assigns seqs, events keep their ids and timestamps
(a backdated event keeps its old timestamp and gets the next seq).
Batches are atomic; an interrupted import leaves a prefix of whole batches, and running
it again writes only what is missing (appends are idempotent by event id).`,
    )
    .action(async (file: string, options: ImportOptions, command: Command) => {
      if (options.batchSize > LIMITS.batch) {
        throw new MemoryError(
          'VALIDATION_FAILED',
          `Invalid --batch-size: must be at most ${LIMITS.batch}, got ${options.batchSize}.`,
        );
      }
      const parsed = await readImportFile(file);
      rejectIfProblems(file, parsed.problems);
      await withLog(command, async (log) => {
        const plan = await planImport(log, parsed.events);
        rejectIfProblems(file, plan.problems);
        if (plan.fresh.length === 0) {
          process.stdout.write(
            `nothing to import into memory ${log.memoryId}: all ${plan.present} events are already in the log\n`,
          );
          return;
        }
        const first = plan.lastSeq === null ? 0 : plan.lastSeq + 1;
        const last = await appendInBatches(log, plan.fresh, options);
        process.stdout.write(
          `imported ${plan.fresh.length} events into memory ${log.memoryId} (seq ${first}..${seqText(last)}); ${plan.present} already present\n`,
        );
      });
    });
}

function rejectIfProblems(file: string, problems: readonly LineProblem[]): void {
  if (problems.length === 0) return;
  for (const problem of problems.slice(0, MAX_LISTED)) {
    process.stderr.write(`${formatProblem(problem)}\n`);
  }
  if (problems.length > MAX_LISTED) {
    process.stderr.write(`... and ${problems.length - MAX_LISTED} more\n`);
  }
  const lines = new Set(problems.map((p) => p.line)).size;
  throw new MemoryError(
    'VALIDATION_FAILED',
    `${file}: ${lines} invalid line${lines === 1 ? '' : 's'}; nothing was imported.`,
    { issues: problems.map((p) => ({ path: `line ${p.line}: ${p.path}`, message: p.rule })) },
  );
}

/** Appends batch by batch; returns the last seq written. */
async function appendInBatches(
  log: EventLog,
  lines: readonly ImportLine[],
  options: ImportOptions,
): Promise<number | null> {
  const bar = progressBar('importing', options.progress && lines.length > options.batchSize);
  let last: number | null = null;
  try {
    for (let at = 0; at < lines.length; at += options.batchSize) {
      const batch = lines.slice(at, at + options.batchSize).map((l) => l.event);
      const stored = await log.append(batch);
      last = stored.at(-1)?.seq ?? last;
      bar.update(Math.min(at + options.batchSize, lines.length), lines.length);
    }
  } finally {
    bar.stop();
  }
  return last;
}
