/**
 * `memledger checkpoint`: the monitor a customer runs on a schedule. It fetches a memory's
 * signed checkpoint from a memledger server, verifies its signature (and a witness quorum) and
 * that it extends the checkpoint saved in `--state` by the server's consistency proof, then
 * saves it. On a failed check it saves nothing, keeps both notes and the proof as evidence
 * beside the state file, and exits 2.
 */
import { Option, type Command } from 'commander';
import { checkMemoryId } from '../../store/memory-id.js';
import { runMonitor } from '../../tlog/index.js';
import { globalOptionsOf } from '../open.js';
import { integerAtLeast } from '../parse-options.js';
import { VIOLATION_EXIT_CODE } from './verify.command.js';

interface CheckpointOptions {
  readonly url: string;
  readonly state: string;
  readonly vkey?: string;
  readonly witness: string[];
  readonly quorum?: number;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Registers `checkpoint` on the program. */
export function registerCheckpointCommand(program: Command): void {
  program
    .command('checkpoint')
    .description(
      "check that a server's memory log only grew since the checkpoint saved in --state, then save the new one",
    )
    .requiredOption('--url <server>', 'the memledger server, e.g. https://memory.example.com')
    .requiredOption(
      '--state <file>',
      'the last verified checkpoint note (created on the first run)',
    )
    .addOption(
      new Option('--vkey <key line>', "the log's verifier key (memledger keygen printed it)").env(
        'MEMLEDGER_LOG_VKEY',
      ),
    )
    .option('--witness <key line>', 'a witness key whose cosignature counts (repeat)', collect, [])
    .option(
      '--quorum <k>',
      'how many of the --witness keys must have cosigned (default: all)',
      integerAtLeast(0),
    )
    .addHelpText(
      'after',
      `
Fetches GET <url>/api/memories/<memory>/checkpoint and, when --state holds a checkpoint,
GET <url>/api/memories/<memory>/proofs/consistency?from=m&to=n. The memory is --memory. The
origin must be <key name>/<memory>. Without --vkey the key the server presents at
/api/log-key is trusted (and said so); the saved checkpoint must still verify under it.
On a server that authenticates callers, --key (or MEMLEDGER_KEY) needs "read" on the memory.
Exit 0: verified and saved. Exit 2: a check failed (size went down, another root at the same
size, a proof that does not verify, a signature by another key, too few witnesses); nothing is
saved and <state>.<time>.saved.note, .fetched.note and .proof.json are kept as evidence.
Exit 1: the server could not be reached or answered an error; nothing is saved.`,
    )
    .action(async (options: CheckpointOptions, command: Command) => {
      const global = globalOptionsOf(command);
      const memory = checkMemoryId(global.memory);
      const report = await runMonitor({
        url: options.url,
        memory,
        statePath: options.state,
        ...(options.vkey === undefined ? {} : { vkey: options.vkey }),
        ...(global.key === undefined ? {} : { key: global.key }),
        witnesses: options.witness,
        ...(options.quorum === undefined ? {} : { quorum: options.quorum }),
      });
      const out = report.ok ? process.stdout : process.stderr;
      for (const line of report.lines) out.write(`${line}\n`);
      if (!report.ok) process.exitCode = VIOLATION_EXIT_CODE;
    });
}
