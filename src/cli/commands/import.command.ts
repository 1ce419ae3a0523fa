/**
 * `memledger import <file.jsonl>`: validate the whole file (each event against the store's size
 * limit too), dry-run the append guard, then append in batches of at most `--batch-size` events
 * that also fit the store's maximum append size (EventStoreDB: 1 MiB by default). Each batch is
 * atomic; a crash mid-import leaves a prefix of whole batches, and running the same import again
 * is safe: events already in the log (same id, same content) are recognised and not written twice.
 */
import type { Command } from 'commander';
import {
  isErased,
  isMemoryError,
  LIMITS,
  MemoryError,
  type MemoryErrorCode,
} from '../../core/index.js';
import {
  appendLimitsOf,
  checkEventSize,
  splitByBytes,
  type AppendLimits,
} from '../../store/append-input.js';
import { keyStoreOf } from '../../store/sealed/sealed-store.js';
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
      `at most n events per atomic append (1 to ${LIMITS.batch}); batches are also cut to fit the store's maximum append size`,
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
Every event must fit the store's size limit (EVENT_TOO_LARGE names it; see the README's
limits table). Batches hold at most --batch-size events and fit the store's maximum append
size (EventStoreDB: 1 MiB by default). Batches are atomic; an interrupted import leaves a
prefix of whole batches, and running it again writes only what is missing (appends are
idempotent by event id).`,
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
      await withLog(command, async (log, store) => {
        if (keyStoreOf(store) === undefined) {
          rejectIfProblems(file, erasureProblems(parsed.events), 'ERASURE_UNAVAILABLE');
        }
        rejectIfProblems(file, sizeProblems(parsed.events, appendLimitsOf(log)), 'EVENT_TOO_LARGE');
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

/**
 * Erasures and erased items, which only a store with a key store can hold (MEMLEDGER_ENCRYPTION
 * off, or a store opened without keys): refused before anything is written.
 */
function erasureProblems(lines: readonly ImportLine[]): LineProblem[] {
  return lines.flatMap(({ line, event }) =>
    event.kind === 'erasure' || isErased(event)
      ? [
          {
            line,
            path: event.kind === 'erasure' ? 'kind' : 'erased',
            rule: 'needs a store with a key store (content sealed at rest) to be imported',
          },
        ]
      : [],
  );
}

/** Lines whose event is larger than the store accepts, each naming the store's limit. */
function sizeProblems(lines: readonly ImportLine[], limits: AppendLimits): LineProblem[] {
  const problems: LineProblem[] = [];
  for (const { line, event } of lines) {
    try {
      checkEventSize(event, limits);
    } catch (error) {
      if (!isMemoryError(error, 'EVENT_TOO_LARGE')) throw error;
      problems.push({ line, path: '(root)', rule: `${error.message} [${error.code}]` });
    }
  }
  return problems;
}

function rejectIfProblems(
  file: string,
  problems: readonly LineProblem[],
  code: MemoryErrorCode = 'VALIDATION_FAILED',
): void {
  if (problems.length === 0) return;
  for (const problem of problems.slice(0, MAX_LISTED)) {
    process.stderr.write(`${formatProblem(problem)}\n`);
  }
  if (problems.length > MAX_LISTED) {
    process.stderr.write(`... and ${problems.length - MAX_LISTED} more\n`);
  }
  const lines = new Set(problems.map((p) => p.line)).size;
  throw new MemoryError(
    code,
    `${file}: ${lines} invalid line${lines === 1 ? '' : 's'}; nothing was imported.`,
    { issues: problems.map((p) => ({ path: `line ${p.line}: ${p.path}`, message: p.rule })) },
  );
}

/**
 * Appends batch by batch, each cut to the store's limits; returns the last seq written. When the
 * server refuses a batch as too large and so lowers the log's limits (EventStoreDB names its
 * maximum append size), the rest is cut again: a refused append wrote nothing.
 */
async function appendInBatches(
  log: EventLog,
  lines: readonly ImportLine[],
  options: ImportOptions,
): Promise<number | null> {
  const bar = progressBar('importing', options.progress && lines.length > options.batchSize);
  const eventOf = (line: ImportLine) => line.event;
  let last: number | null = null;
  let done = 0;
  try {
    let limits = appendLimitsOf(log);
    let batches = splitByBytes(lines, eventOf, limits, options.batchSize);
    while (batches.length > 0) {
      const batch = batches[0]!;
      try {
        const stored = await log.append(batch.map(eventOf));
        last = stored.at(-1)?.seq ?? last;
      } catch (error) {
        const lowered = appendLimitsOf(log);
        if (
          !isMemoryError(error, 'PAYLOAD_TOO_LARGE') ||
          !(lowered.appendBytes < limits.appendBytes)
        ) {
          throw error;
        }
        limits = lowered;
        batches = splitByBytes(batches.flat(), eventOf, limits, options.batchSize);
        continue;
      }
      batches.shift();
      done += batch.length;
      bar.update(done, lines.length);
    }
  } finally {
    bar.stop();
  }
  return last;
}
