/**
 * `memledger audit <id>`: one item's history — written, every recall that used it, its deletion.
 * `memledger audit --principal agent-7 [--since t1] [--until t2]`: what a principal recalled from
 * the memory, and what each recall contained. Both show `actor` (the caller's claim) beside
 * `recordedBy` (the principal the server authenticated). With `--server`, through a server.
 */
import type { Command } from 'commander';
import { isErased, retrievalText, type RecordedBy, type Sequenced } from '../../core/index.js';
import type { AuditedRecall, ItemHistory, RecallAuditPage } from '../../memory/index.js';
import { globalOptionsOf, withMemory } from '../open.js';
import { ERASED_TEXT, preview, printLines, requesterOf, writeLine } from '../output.js';
import { memoryPath, remoteOf } from '../remote.js';

interface AuditOptions {
  readonly json?: boolean;
  readonly principal?: string;
  readonly since?: string;
  readonly until?: string;
}

/** Registers `audit` on the program. */
export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description(
      'the history of one event (written, every recall that used it, its deletion and erasure), or every recall by a principal',
    )
    .argument('[id]', 'the event id (a UUID); without it, list recalls (--principal, --since)')
    .option('--principal <name>', 'only recalls recorded by this authenticated principal')
    .option('--since <time>', 'only recalls at or after this time (ISO-8601 with an offset)')
    .option('--until <time>', 'only recalls before this time')
    .option(
      '--json',
      'print the history as JSON ({ event, recalls, deletedBy, erasedBy }), or each recall as a JSON line ({ recall, items })',
    )
    .action(async (id: string | undefined, options: AuditOptions, command: Command) => {
      if (id !== undefined) await auditItem(command, id.trim().toLowerCase(), options);
      else await auditRecalls(command, options);
    });
}

/** One item's history, from the store or through the server. */
async function auditItem(command: Command, id: string, options: AuditOptions): Promise<void> {
  const print = async (history: ItemHistory) => {
    if (options.json) process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
    else await printLines(historyLines(history));
  };
  const remote = remoteOf(command);
  if (remote) {
    const { memory } = globalOptionsOf(command);
    await print(await remote.get<ItemHistory>(memoryPath(memory, `items/${id}/history`)));
    return;
  }
  await withMemory(command, async (memory) => print(await memory.history(id)));
}

/** Every recall the filters select, page after page, from the store or through the server. */
async function auditRecalls(command: Command, options: AuditOptions): Promise<void> {
  const query = {
    principal: options.principal,
    from: options.since,
    to: options.until,
  };
  const each = async (page: (fromSeq: number) => Promise<RecallAuditPage>) => {
    let count = 0;
    for (let next: number | null = 0; next !== null;) {
      const { recalls, next: after }: RecallAuditPage = await page(next);
      for (const audited of recalls) {
        count += 1;
        if (options.json) await writeLine(process.stdout, JSON.stringify(audited));
        else await printLines(recallLines(audited));
      }
      next = after;
    }
    if (!options.json) await printLines([`${count} recall${count === 1 ? '' : 's'}`]);
  };
  const remote = remoteOf(command);
  if (remote) {
    const path = memoryPath(globalOptionsOf(command).memory, 'recalls');
    await each((fromSeq) => remote.get<RecallAuditPage>(path, { ...query, fromSeq }));
    return;
  }
  const defined = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  await withMemory(command, (memory) =>
    each((fromSeq) => memory.recallAudit({ ...defined, fromSeq })),
  );
}

/** Who an event was recorded by, as authenticated. */
function byText(by: RecordedBy): string {
  return by === null ? 'nobody authenticated' : `${by.principal} (${by.via})`;
}

/** One recall of the audit and what it contained, as lines for people. */
export function* recallLines({ recall, items }: AuditedRecall): Generator<string> {
  yield `recall ${recall.id}: seq ${recall.seq}, ${recall.timestamp}, actor ${recall.actor ?? 'none'}, recorded by ${byText(recall.recordedBy)}, query ${JSON.stringify(preview(recall.query))}, ${items.length} item${items.length === 1 ? '' : 's'}`;
  for (const { event, deletedBy } of items) {
    const later = deletedBy === null ? '' : ` (deleted since, at seq ${deletedBy.seq})`;
    yield `  ${event.id} ${describe(event)}${later}`;
  }
}

/** The history as lines for people. */
export function* historyLines(history: ItemHistory): Generator<string> {
  const { event, recalls, deletedBy, erasedBy } = history;
  yield `${event.kind} ${event.id}`;
  yield `  written: seq ${event.seq}, ${event.timestamp}, ${describe(event)}`;
  yield `  recalled: ${recalls.length} time${recalls.length === 1 ? '' : 's'}`;
  for (const use of recalls) {
    yield `    seq ${use.seq}, ${use.timestamp}, query ${JSON.stringify(preview(use.query))}, actor ${use.actor ?? 'none'}, recorded by ${byText(use.recordedBy)} (recall ${use.recallId}), retrieved ${retrievalText(use.retrieval)}`;
  }
  if (deletedBy === null) {
    yield `  deleted: no`;
  } else {
    yield `  deleted: seq ${deletedBy.seq}, ${deletedBy.timestamp}, requested by ${requesterOf(deletedBy)}, actor ${deletedBy.actor ?? 'none'}, recorded by ${byText(deletedBy.recordedBy)} (deletion ${deletedBy.id})`;
    yield `    reason: ${deletedBy.reason}`;
  }
  if (erasedBy !== null) {
    yield `  erased: seq ${erasedBy.seq}, ${erasedBy.timestamp}, requested by ${requesterOf(erasedBy)}, actor ${erasedBy.actor ?? 'none'}, recorded by ${byText(erasedBy.recordedBy)} (erasure ${erasedBy.id})`;
    yield `    reason: ${erasedBy.reason}`;
  }
}

function describe(event: Sequenced): string {
  const who = `actor ${event.actor ?? 'none'}, recorded by ${byText(event.recordedBy)}, source ${event.source}`;
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
