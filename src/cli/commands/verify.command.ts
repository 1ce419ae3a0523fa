/**
 * `memledger verify`: replays the whole log and re-checks every invariant the fold can see —
 * seqs gapless from 0, unique ids, deletions of existing undeleted content, recalls of visible
 * content, and every stored event decodable. Exit 0 when sound, 2 at the first violation.
 */
import type { Command } from 'commander';
import { isMemoryError, type MemoryErrorCode } from '../../core/index.js';
import type { EventLog } from '../../store/event-log.port.js';
import { foldLog } from '../fold-log.js';
import { globalOptionsOf, withStore } from '../open.js';
import { seqText } from '../output.js';

interface VerifyOptions {
  readonly all?: boolean;
}

/** Errors that mean the log itself is unsound (anything else is an ordinary failure). */
const VIOLATIONS: ReadonlySet<MemoryErrorCode> = new Set([
  'REPLAY_ORDER',
  'LOG_INVARIANT_VIOLATED',
  'EVENT_DECODE_FAILED',
]);

/** The exit code of a log that breaks an invariant (1 stays for ordinary errors). */
export const VIOLATION_EXIT_CODE = 2;

/** Registers `verify` on the program. */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('replay the whole log and re-check every invariant; exit 2 at the first violation')
    .option('--all', 'verify every memory of the store, not only --memory')
    .addHelpText(
      'after',
      `
Prints "ok: N events, last seq S", or "violation [CODE] at seq S: <what>" for the first
event that breaks an invariant (exit code 2). Codes: REPLAY_ORDER (seq out of order or
after a gap), LOG_INVARIANT_VIOLATED (repeated id, deletion or recall of unknown, non-content
or deleted content), EVENT_DECODE_FAILED (a stored event the schemas reject).`,
    )
    .action(async (options: VerifyOptions, command: Command) => {
      await withStore(
        command,
        async (store) => {
          const ids = options.all ? await store.memoryIds() : [globalOptionsOf(command).memory];
          let sound = true;
          for (const id of ids) {
            const line = await verifyLog(store.log(id));
            sound &&= line.startsWith('ok');
            process.stdout.write(`${options.all ? `${id}: ` : ''}${line}\n`);
          }
          if (!sound) process.exitCode = VIOLATION_EXIT_CODE;
        },
        { mustExist: true },
      );
    });
}

/** `ok: ...` or `violation [CODE] at seq S: message`. */
async function verifyLog(log: EventLog): Promise<string> {
  try {
    const { state, events } = await foldLog(log);
    return `ok: ${events} events, last seq ${seqText(state.lastSeq)}`;
  } catch (error) {
    if (!isMemoryError(error) || !VIOLATIONS.has(error.code)) throw error;
    const seq = error.details.seq;
    return `violation [${error.code}]${typeof seq === 'number' ? ` at seq ${seq}` : ''}: ${error.message}`;
  }
}
