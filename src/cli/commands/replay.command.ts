/** `memledger replay [--up-to <seq>]`: the memory's state as it stood right after a seq. */
import type { Command } from 'commander';
import { isErased, type ContentEvent, type MemoryState, type Sequenced } from '../../core/index.js';
import { withMemory } from '../open.js';
import { ERASED_TEXT, preview, printLines, requesterOf, seqText } from '../output.js';
import { integerAtLeast } from '../parse-options.js';

interface ReplayOptions {
  readonly upTo?: number;
  readonly json?: boolean;
}

/** Registers `replay` on the program. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('the memory state as it stood right after a seq (now by default)')
    .option(
      '--up-to <seq>',
      'stop right after this seq (-1: before the first event); default: the whole log',
      integerAtLeast(-1),
    )
    .option('--json', 'print the full MemoryState as JSON')
    .action(async (options: ReplayOptions, command: Command) => {
      await withMemory(command, async (memory) => {
        // From the read models, by index: no fold of the log (`verify` keeps the reference fold).
        const state = await memory.state(
          options.upTo === undefined ? {} : { upToSeq: options.upTo },
        );
        if (options.json) {
          process.stdout.write(`${JSON.stringify(state, null, 2)}\n`);
        } else {
          await printLines(summaryOf(memory.memoryId, state, memory.readModelSeq));
        }
      });
    });
}

/** The human summary: counts, visible items, deleted items with reason, recall stats. */
export function* summaryOf(
  memoryId: string,
  state: MemoryState,
  head: number | null,
): Generator<string> {
  const deleted = Object.entries(state.deleted);
  const stats = Object.entries(state.recallStats);
  yield `memory ${memoryId}: state at seq ${seqText(state.lastSeq)} (log head ${seqText(head)})`;
  yield `messages: ${state.messages.length} (${state.visibleMessages.length} visible), documents: ${state.documents.length} (${state.visibleDocuments.length} visible), deleted: ${deleted.length}, recalled items: ${stats.length}`;
  const visible = [...state.visibleMessages, ...state.visibleDocuments].sort(
    (a, b) => a.seq - b.seq,
  );
  yield `visible (${visible.length}):`;
  for (const item of visible) yield `  ${itemLine(item)}`;
  yield `deleted (${deleted.length}):`;
  for (const [id, deletion] of deleted) {
    const erasure = state.erased[id];
    const erased = erasure === undefined ? '' : `, erased at seq ${erasure.seq}`;
    yield `  ${id}  at seq ${deletion.seq}${erased}, requested by ${requesterOf(deletion)}: ${preview(deletion.reason)}`;
  }
  yield `recall stats (${stats.length}):`;
  for (const [id, stat] of stats) {
    yield `  ${id}  ${stat.count} recall${stat.count === 1 ? '' : 's'}, last at seq ${stat.lastRecalledSeq} (${stat.lastRecalledAt})`;
  }
}

/** `<id>  <kind>  <first 60 characters>`; an erased item as `[erased]` (a message keeps its speaker). */
export function itemLine(item: Sequenced<ContentEvent>): string {
  const text = isErased(item)
    ? item.kind === 'message'
      ? `${item.speaker}: ${ERASED_TEXT}`
      : ERASED_TEXT
    : item.kind === 'message'
      ? `${item.speaker}: ${item.content}`
      : `${item.name}: ${item.text}`;
  return `${item.id}  ${item.kind.padEnd(8)}  ${preview(text)}`;
}
