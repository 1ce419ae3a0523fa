/**
 * `memledger search <query>` (inspection, writes nothing) and `memledger recall <query>` (the
 * auditable read: appends a Recall naming what it returned), by words, meaning or both
 * (`--mode`). On the store, the embedder comes from `MEMLEDGER_EMBEDDINGS_*`
 * (docs/semantic-recall.md); with `--server`, the server's own does the work and the key needs
 * `read` (search) or `recall` (recall).
 */
import { Option, type Command } from 'commander';
import {
  isErased,
  RecallMode,
  retrievalText,
  type ContentEvent,
  type Sequenced,
} from '../../core/index.js';
import type { RecallResult, SearchResult } from '../../memory/index.js';
import { globalOptionsOf, withMemory } from '../open.js';
import { operator } from '../operator.js';
import { preview, printLines } from '../output.js';
import { integerAtLeast } from '../parse-options.js';
import { memoryPath, remoteOf } from '../remote.js';

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
      const print = async (hits: readonly SearchResult[]) => {
        if (options.json) process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
        else await printLines(hits.map((hit) => `${hit.score.toFixed(4)}  ${itemLine(hit.item)}`));
      };
      const remote = remoteOf(command);
      if (remote) {
        const path = memoryPath(globalOptionsOf(command).memory, 'search');
        const { mode, asOf: upToSeq, limit } = options;
        await print(await remote.get<SearchResult[]>(path, { q: query, mode, upToSeq, limit }));
        return;
      }
      await withMemory(command, async (memory) => {
        const hits = await memory.search(query, {
          ...(options.mode ? { mode: options.mode } : {}),
          ...(options.asOf === undefined ? {} : { asOfSeq: options.asOf }),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        });
        await print(hits);
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
      const request = {
        query,
        source: 'cli',
        ...(options.mode ? { mode: options.mode } : {}),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      };
      const print = async (result: RecallResult) => {
        if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else await printLines(recallLines(result));
      };
      const remote = remoteOf(command);
      if (remote) {
        const path = memoryPath(globalOptionsOf(command).memory, 'recall');
        await print(await remote.post<RecallResult>(path, request));
        return;
      }
      // On the store itself the command line vouches for its user; a server records its caller.
      await withMemory(command, async (memory) =>
        print(await memory.recall({ ...request, recordedBy: operator() })),
      );
    });
}

/** A recall's result as lines for people: the Recall, how it retrieved, the items. */
function recallLines({ recall, items, vectors }: RecallResult): string[] {
  return [
    `recall ${recall.id} at seq ${recall.seq}: ${items.length} item(s), ${retrievalText(recall.retrieval)}`,
    ...(vectors && vectors.state !== 'current'
      ? [
          `  vectors ${vectors.state}: ${vectors.reason ?? `${vectors.behind} item(s) not embedded yet`}`,
        ]
      : []),
    ...items.map(itemLine),
  ];
}

function itemLine(item: Sequenced<ContentEvent>): string {
  if (isErased(item)) return `${item.kind} ${item.id} seq ${item.seq}: erased`;
  const text =
    item.kind === 'message' ? `${item.speaker}: ${item.content}` : `${item.name}: ${item.text}`;
  return `${item.kind} ${item.id} seq ${item.seq}: ${JSON.stringify(preview(text))}`;
}
