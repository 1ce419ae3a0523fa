/**
 * `memledger search <query>` (inspection, writes nothing) and `memledger recall <query>` (the
 * auditable read: appends a Recall naming what it returned), by words, meaning or both
 * (`--mode`). The embedder comes from `MEMLEDGER_EMBEDDINGS_*` (docs/semantic-recall.md).
 */
import { Option, type Command } from 'commander';
import { isErased, RecallMode, type ContentEvent, type Sequenced } from '../../core/index.js';
import { withMemory } from '../open.js';
import { preview, printLines } from '../output.js';
import { integerAtLeast } from '../parse-options.js';

interface ReadOptions {
  readonly mode?: RecallMode;
  readonly limit?: number;
  readonly asOf?: number;
  readonly json?: boolean;
}

const modeOption = () =>
  new Option(
    '--mode <mode>',
    'lexical (words), semantic (meaning) or hybrid (both); default hybrid with an embedder',
  ).choices(RecallMode.options);

/** Registers `search` and `recall` on the program. */
export function registerSearchCommands(program: Command): void {
  program
    .command('search')
    .description('search the visible content now or as of a seq (writes nothing)')
    .argument('<query>', 'the text to search for')
    .addOption(modeOption())
    .option('--as-of <seq>', 'search the content visible right after this seq', integerAtLeast(-1))
    .option(
      '--limit <n>',
      'at most this many hits, 1 to 1000 (default 10)',
      integerAtLeast(1, 1000),
    )
    .option('--json', 'print the hits as JSON ({ id, kind, seq, score, item })')
    .action(async (query: string, options: ReadOptions, command: Command) => {
      await withMemory(command, async (memory) => {
        const hits = await memory.search(query, {
          ...(options.mode ? { mode: options.mode } : {}),
          ...(options.asOf === undefined ? {} : { asOfSeq: options.asOf }),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        });
        if (options.json) process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
        else await printLines(hits.map((hit) => `${hit.score.toFixed(4)}  ${itemLine(hit.item)}`));
      });
    });
  program
    .command('recall')
    .description('the auditable read: retrieve, append a Recall naming the items, print them')
    .argument('<query>', 'what to look for')
    .addOption(modeOption())
    .option('--limit <n>', 'at most this many items, 1 to 100 (default 5)', integerAtLeast(1, 100))
    .option('--json', 'print the result as JSON ({ recall, items, vectors })')
    .action(async (query: string, options: ReadOptions, command: Command) => {
      await withMemory(command, async (memory) => {
        const result = await memory.recall({
          query,
          source: 'cli',
          ...(options.mode ? { mode: options.mode } : {}),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          return;
        }
        const { recall, items, vectors } = result;
        const how = recall.retrieval;
        const lines = [
          `recall ${recall.id} at seq ${recall.seq}: ${items.length} item(s), ${how.method}${how.model ? ` (${how.model}, ${how.dimensions} dimensions)` : ''}`,
          ...(vectors && vectors.state !== 'current'
            ? [
                `  vectors ${vectors.state}: ${vectors.reason ?? `${vectors.behind} item(s) not embedded yet`}`,
              ]
            : []),
          ...items.map(itemLine),
        ];
        await printLines(lines);
      });
    });
}

function itemLine(item: Sequenced<ContentEvent>): string {
  if (isErased(item)) return `${item.kind} ${item.id} seq ${item.seq}: erased`;
  const text =
    item.kind === 'message' ? `${item.speaker}: ${item.content}` : `${item.name}: ${item.text}`;
  return `${item.kind} ${item.id} seq ${item.seq}: ${JSON.stringify(preview(text))}`;
}
