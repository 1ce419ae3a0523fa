/** `memledger audit <id>`: one item's history — written, every recall that used it, its deletion. */
import type { Command } from 'commander';
import { isErased, type Sequenced } from '../../core/index.js';
import type { ItemHistory } from '../../memory/index.js';
import { withMemory } from '../open.js';
import { ERASED_TEXT, preview, printLines, requesterOf } from '../output.js';

interface AuditOptions {
  readonly json?: boolean;
}

/** Registers `audit` on the program. */
export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description(
      'show the history of one event: when it was written, every recall that used it, its deletion and erasure',
    )
    .argument('<id>', 'the event id (a UUID)')
    .option('--json', 'print the history as JSON ({ event, recalls, deletedBy, erasedBy })')
    .action(async (id: string, options: AuditOptions, command: Command) => {
      await withMemory(command, async (memory) => {
        const history = await memory.history(id.trim().toLowerCase());
        if (options.json) {
          process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
        } else {
          await printLines(historyLines(history));
        }
      });
    });
}

/** The history as lines for people. */
export function* historyLines(history: ItemHistory): Generator<string> {
  const { event, recalls, deletedBy, erasedBy } = history;
  yield `${event.kind} ${event.id}`;
  yield `  written: seq ${event.seq}, ${event.timestamp}, ${describe(event)}`;
  yield `  recalled: ${recalls.length} time${recalls.length === 1 ? '' : 's'}`;
  for (const use of recalls) {
    yield `    seq ${use.seq}, ${use.timestamp}, query ${JSON.stringify(preview(use.query))}, actor ${use.actor ?? 'none'} (recall ${use.recallId})`;
  }
  if (deletedBy === null) {
    yield `  deleted: no`;
  } else {
    yield `  deleted: seq ${deletedBy.seq}, ${deletedBy.timestamp}, requested by ${requesterOf(deletedBy)}, actor ${deletedBy.actor ?? 'none'} (deletion ${deletedBy.id})`;
    yield `    reason: ${deletedBy.reason}`;
  }
  if (erasedBy !== null) {
    yield `  erased: seq ${erasedBy.seq}, ${erasedBy.timestamp}, requested by ${requesterOf(erasedBy)}, actor ${erasedBy.actor ?? 'none'} (erasure ${erasedBy.id})`;
    yield `    reason: ${erasedBy.reason}`;
  }
}

function describe(event: Sequenced): string {
  const who = `actor ${event.actor ?? 'none'}, source ${event.source}`;
  if (isErased(event)) return `${event.kind}, ${who}: ${ERASED_TEXT} (its words are gone for good)`;
  switch (event.kind) {
    case 'message':
      return `speaker ${event.speaker}, ${who}: ${JSON.stringify(preview(event.content))}`;
    case 'document':
      return `name ${event.name} (${event.mediaType}), ${who}: ${JSON.stringify(preview(event.text))}`;
    case 'recall':
      return `query ${JSON.stringify(preview(event.query))}, ${event.recalled.length} ids recalled, ${who}`;
    case 'deletion':
    case 'erasure':
      return `${event.targets.length} targets, reason ${JSON.stringify(preview(event.reason))}, ${who}`;
  }
}
